// Parameter-file round trip and the refusals: truncated, corrupt, wrong magic, wrong
// version, other shape, and crafted section tables behind valid checksums (offsets and
// counts near 2^63 and 2^64, a VK point size of 1, counts the header's circuit cannot have). Points are random multiples of the generators (the file does not
// care whether they form a real SRS).
#include <gtest/gtest.h>

#include <filesystem>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>

#include "core/curve/fixed_base.hpp"
#include "core/curve/serialize.hpp"
#include "core/groth16/param_file.hpp"
#include "core/groth16/proof.hpp"

namespace {

using namespace prooflab;
namespace fs = std::filesystem;

struct Fixture {
  groth16::ProvingKey pk;
  groth16::CircuitShape shape{3, 5, 6, 8, 0x1234abcd};
};

Fixture make_fixture() {
  std::mt19937_64 rng(11);
  parallel::ThreadPool pool(2);
  const curve::FixedBaseTable<curve::G1Curve> t1(curve::g1_generator(), 4);
  const curve::FixedBaseTable<curve::G2Curve> t2(curve::g2_generator(), 4);
  auto g1s = [&](std::size_t n) {
    std::vector<field::Fr> k(n);
    for (auto& x : k) x = field::Fr::random(rng);
    std::vector<curve::G1Affine> out(n);
    t1.mul_batch(k, out, pool);
    return out;
  };
  Fixture f;
  auto& vk = f.pk.vk;
  vk.alpha_g1 = g1s(1)[0];
  vk.beta_g1 = g1s(1)[0];
  vk.delta_g1 = curve::G1Affine::infinity();  // infinity must survive the round trip too
  vk.beta_g2 = t2.mul(field::Fr::random(rng)).to_affine();
  vk.gamma_g2 = t2.mul(field::Fr::random(rng)).to_affine();
  vk.delta_g2 = t2.mul(field::Fr::random(rng)).to_affine();
  vk.ic = g1s(3);
  f.pk.h = g1s(7);
  f.pk.l = g1s(5);
  f.pk.a = g1s(6);
  f.pk.b_g1 = g1s(2);
  f.pk.b_g2 = {vk.beta_g2, vk.gamma_g2};
  return f;
}

fs::path temp_file(const char* name) {
  return fs::temp_directory_path() / (std::string("prooflab_") + name + "_" +
                                      std::to_string(::getpid()) + ".params");
}

void flip_byte(const fs::path& p, std::size_t offset) {
  std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c;
  f.read(&c, 1);
  c ^= 0x01;
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

void expect_refused(const fs::path& p, const std::string& fragment,
                    const groth16::CircuitShape* expected = nullptr) {
  parallel::ThreadPool pool(2);
  try {
    groth16::read_param_file(p, pool, expected);
    FAIL() << "expected a refusal containing '" << fragment << "'";
  } catch (const groth16::ParamFileError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << "names the file";
  }
}

TEST(ParamFile, RoundTrip) {
  const auto f = make_fixture();
  const auto p = temp_file("roundtrip");
  groth16::write_param_file(p, f.shape, f.pk);
  parallel::ThreadPool pool(2);
  EXPECT_EQ(groth16::read_param_file(p, pool, &f.shape), f.pk);
  EXPECT_EQ(groth16::read_param_file_shape(p), f.shape);
  fs::remove(p);
}

// A key whose H query is in the coset's Lagrange basis (m points, and for coset_fold_c the inputs'
// share of C after them) keeps its basis and points through the file.
TEST(ParamFile, RoundTripOfACosetLagrangeKey) {
  auto f = make_fixture();
  f.pk.h_basis = groth16::HBasis::kCosetLagrange;
  f.pk.h.push_back(f.pk.h.front());
  const auto p = temp_file("roundtrip_coset");
  groth16::write_param_file(p, f.shape, f.pk);
  parallel::ThreadPool pool(2);
  const auto back = groth16::read_param_file(p, pool, &f.shape);
  EXPECT_EQ(back.h_basis, groth16::HBasis::kCosetLagrange);
  EXPECT_EQ(back, f.pk);
  // Folded C: the H section holds the m coset points, then one point per input.
  f.pk.h_basis = groth16::HBasis::kCosetFoldedC;
  f.pk.h_inputs = f.pk.vk.ic;
  groth16::write_param_file(p, f.shape, f.pk);
  const auto folded = groth16::read_param_file(p, pool, &f.shape);
  EXPECT_EQ(folded.h.size(), 8u);
  EXPECT_EQ(folded.h_inputs.size(), 3u);
  EXPECT_EQ(folded, f.pk);
  fs::remove(p);
}

TEST(ParamFile, RefusesBadFiles) {
  const auto f = make_fixture();
  const auto p = temp_file("bad");
  groth16::write_param_file(p, f.shape, f.pk);
  const auto size = fs::file_size(p);

  auto other = f.shape;
  other.num_aux += 1;
  expect_refused(p, "another circuit shape", &other);

  flip_byte(p, size - 10);  // inside the last B_G2 point
  expect_refused(p, "body checksum mismatch");
  flip_byte(p, size - 10);

  flip_byte(p, 0);
  expect_refused(p, "bad magic");
  flip_byte(p, 0);

  flip_byte(p, 8);  // version
  expect_refused(p, "unsupported version");
  flip_byte(p, 8);

  fs::resize_file(p, size - 1);
  expect_refused(p, "truncated");
  fs::resize_file(p, 20);
  expect_refused(p, "truncated");
  fs::remove(p);
  expect_refused(p, "cannot open");
}

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Writes `image` with its header edited by `edit` and both checksums recomputed.
template <class Edit>
void write_crafted(const fs::path& p, std::vector<std::uint8_t> image, Edit&& edit) {
  groth16::ParamFileHeader h;
  std::memcpy(&h, image.data(), sizeof h);
  edit(h);
  std::memcpy(image.data(), &h, sizeof h);
  groth16::reseal_param_bytes(image);
  std::ofstream(p, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size()));
}

TEST(ParamFile, ResealingAnUneditedImageKeepsItReadable) {
  const auto f = make_fixture();
  const auto p = temp_file("reseal");
  groth16::write_param_file(p, f.shape, f.pk);
  write_crafted(p, read_bytes(p), [](groth16::ParamFileHeader&) {});
  parallel::ThreadPool pool(2);
  EXPECT_EQ(groth16::read_param_file(p, pool, &f.shape), f.pk);
  fs::remove(p);
}

TEST(ParamFile, RefusesCraftedSectionTablesBehindValidChecksums) {
  const auto f = make_fixture();
  const auto p = temp_file("crafted");
  groth16::write_param_file(p, f.shape, f.pk);
  const auto image = read_bytes(p);
  const std::uint64_t h_offset = sizeof(groth16::ParamFileHeader) + 864 + 3 * 96;
  struct Case {
    const char* what;
    std::function<void(groth16::ParamFileHeader&)> edit;
    std::string refusal;
  };
  const std::vector<Case> cases = {
      {"H count 2^63", [](auto& h) { h.sections[2].count = 1ull << 63; },
       "truncated: section H needs 9223372036854775808 x 96 bytes from byte " + std::to_string(h_offset)},
      // 7 + 2^64/32 entries of 96 bytes wrap to 7 x 96 in 64 bits: the old bound check passed.
      {"H count that wraps", [](auto& h) { h.sections[2].count = 7 + (1ull << 59); },
       "truncated: section H needs " + std::to_string(7 + (1ull << 59)) + " x 96 bytes"},
      {"H offset 2^63", [](auto& h) { h.sections[2].offset = 1ull << 63; },
       "section H starts at byte 9223372036854775808, expected " + std::to_string(h_offset)},
      {"VK point size 1", [](auto& h) { h.sections[0].point_bytes = 1; },
       "section VK has 1-byte entries, expected 864"},
      {"B_G2 point size 96", [](auto& h) { h.sections[6].point_bytes = 96; },
       "section B_G2 has 96-byte entries, expected 192"},
      {"VK count 2", [](auto& h) { h.sections[0].count = 2; }, "section IC starts at byte"},
      {"IC shifted by one point", [](auto& h) { h.sections[1].offset += 96; }, "section IC starts at byte"},
      {"inputs 4", [](auto& h) { h.num_inputs = 4; },
       "section IC holds 3 entries, but the header's circuit (inputs=4 aux=5 domain=8) needs 4"},
      {"domain 16", [](auto& h) { h.domain_size = 16; }, "section H holds 7 entries"},
      {"domain 0", [](auto& h) { h.domain_size = 0; }, "is not a circuit"},
      {"aux near 2^64", [](auto& h) { h.num_aux = ~0ull - 1; }, "is not a circuit"},
      {"section renamed", [](auto& h) { std::memcpy(h.sections[3].name, "X", 2); }, "section 3 is not L"},
      // The H section's basis tag: 7 points are the monomial count for domain 8, not the coset's.
      {"H tagged coset", [](auto& h) { h.sections[2].basis = 1; },
       "section H holds 7 entries, but the header's circuit (inputs=3 aux=5 domain=8) needs 8 (the coset basis)"},
      {"H tagged coset_fold_c", [](auto& h) { h.sections[2].basis = 2; },
       "section H holds 7 entries, but the header's circuit (inputs=3 aux=5 domain=8) needs 11 (the "
       "coset_fold_c basis)"},
      {"H basis tag 3", [](auto& h) { h.sections[2].basis = 3; },
       "section H has basis tag 3, expected 0 (monomial), 1 (coset) or 2 (coset_fold_c)"},
      {"L basis tag 1", [](auto& h) { h.sections[3].basis = 1; }, "section L has basis tag 1, expected 0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    write_crafted(p, image, c.edit);
    expect_refused(p, c.refusal);
    try {
      groth16::read_param_file_shape(p);
      ADD_FAILURE() << "the shape of a crafted file was read";
    } catch (const groth16::ParamFileError&) {
    }
  }
  fs::remove(p);
}

TEST(Proof, SerialisesTo192BytesAndBack) {
  std::mt19937_64 rng(3);
  const curve::FixedBaseTable<curve::G1Curve> t1(curve::g1_generator(), 4);
  const curve::FixedBaseTable<curve::G2Curve> t2(curve::g2_generator(), 4);
  const groth16::Proof proof{t1.mul(field::Fr::random(rng)).to_affine(),
                             t2.mul(field::Fr::random(rng)).to_affine(),
                             t1.mul(field::Fr::random(rng)).to_affine()};
  const auto bytes = groth16::serialize_proof(proof);
  EXPECT_EQ(groth16::deserialize_proof(bytes), proof);
  auto bad = bytes;
  bad[48] &= 0x7f;  // B without its compression flag
  try {
    groth16::deserialize_proof(bad);
    FAIL() << "expected a DecodeError";
  } catch (const curve::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("proof element B"), std::string::npos) << e.what();
  }
}

TEST(FixedBase, MatchesDoubleAndAdd) {
  std::mt19937_64 rng(5);
  for (unsigned w : {3u, 4u, 8u}) {
    const curve::FixedBaseTable<curve::G1Curve> t(curve::g1_generator(), w);
    for (int i = 0; i < 8; ++i) {
      const auto k = field::Fr::random(rng);
      EXPECT_EQ(t.mul(k), curve::scalar_mul(curve::G1Jacobian::from_affine(curve::g1_generator()), k));
    }
    EXPECT_TRUE(t.mul(field::Fr::zero()).is_infinity());
  }
}

}  // namespace
