// Parameter-file round trip and the refusals: truncated, corrupt, wrong magic, wrong
// version, other shape. Points are random multiples of the generators (the file does not
// care whether they form a real SRS).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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
