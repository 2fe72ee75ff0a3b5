#include "core/groth16/param_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/curve/serialize.hpp"
#include "core/io/atomic_file.hpp"

namespace prooflab::groth16 {
namespace {

constexpr char kMagic[8] = {'P', 'L', 'A', 'B', 'G', '1', '6', '\0'};
constexpr char kCurve[16] = "BLS12-381";
constexpr std::size_t kSections = kParamSections;
constexpr std::size_t kHSection = 2;
using Header = ParamFileHeader;
using SectionEntry = ParamFileSection;

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw ParamFileError("parameter file " + path.string() + ": " + what);
}

template <class Point, std::size_t N, class Encode>
void put_points(std::vector<std::uint8_t>& out, const std::vector<Point>& pts, Encode&& encode) {
  const std::size_t start = out.size();
  out.resize(start + pts.size() * N);
  for (std::size_t i = 0; i < pts.size(); ++i)
    encode(pts[i], std::span<std::uint8_t, N>(out.data() + start + i * N, N));
}

// Memory-maps a file read-only; unmaps on destruction.
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail(path, std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) fail(path, std::string("cannot stat: ") + std::strerror(errno));
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ == 0) fail(path, "file is empty");
    data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (data_ == MAP_FAILED) fail(path, std::string("cannot mmap: ") + std::strerror(errno));
  }
  ~MappedFile() {
    if (data_ && data_ != MAP_FAILED) ::munmap(data_, size_);
    if (fd_ >= 0) ::close(fd_);
  }
  const std::uint8_t* data() const { return static_cast<const std::uint8_t*>(data_); }
  std::size_t size() const { return size_; }

 private:
  int fd_ = -1;
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

// The section table against the file's length and the header's own sizes. Sizes are
// compared by division, never by multiplying counts that a crafted file may set near 2^64.
void check_sections(const std::filesystem::path& path, const Header& h, std::size_t file_size) {
  std::uint64_t next = sizeof(Header);  // the sections follow the header back to back
  for (std::size_t s = 0; s < kSections; ++s) {
    const auto& e = h.sections[s];
    const std::string name = kParamSectionNames[s];
    if (std::strncmp(e.name, kParamSectionNames[s], sizeof e.name) != 0)
      fail(path, "section " + std::to_string(s) + " is not " + name);
    if (e.point_bytes != kParamPointBytes[s])
      fail(path, "section " + name + " has " + std::to_string(e.point_bytes) +
                     "-byte entries, expected " + std::to_string(kParamPointBytes[s]));
    if (e.offset != next)
      fail(path, "section " + name + " starts at byte " + std::to_string(e.offset) +
                     ", expected " + std::to_string(next) + " (right after the previous one)");
    if (e.offset > file_size || e.count > (file_size - e.offset) / e.point_bytes)
      fail(path, "truncated: section " + name + " needs " + std::to_string(e.count) + " x " +
                     std::to_string(e.point_bytes) + " bytes from byte " + std::to_string(e.offset) +
                     " but the file has " + std::to_string(file_size));
    next = e.offset + e.count * e.point_bytes;  // <= file_size: cannot overflow
    const std::uint32_t max_basis = s == kHSection ? static_cast<std::uint32_t>(HBasis::kCosetFoldedC) : 0;
    if (e.basis > max_basis)
      fail(path, "section " + name + " has basis tag " + std::to_string(e.basis) +
                     (s == kHSection ? ", expected 0 (monomial), 1 (coset) or 2 (coset_fold_c)" : ", expected 0"));
  }
  if (next != file_size)
    fail(path, "size mismatch: sections end at byte " + std::to_string(next) +
                   " but the file has " + std::to_string(file_size) + " bytes");

  // The counts the header's circuit sizes imply (see keys.hpp): IC one per input, L one per
  // aux variable, H domain - 1 (monomial), domain (coset) or domain + inputs (coset_fold_c: the
  // coset points, then h_inputs), A every input and some aux, B_G1 and B_G2 the same subset.
  auto count_of = [&](std::size_t s) { return h.sections[s].count; };
  auto expect = [&](std::size_t s, bool ok, const std::string& should) {
    if (!ok)
      fail(path, std::string("section ") + kParamSectionNames[s] + " holds " +
                     std::to_string(count_of(s)) + " entries, but the header's circuit (" +
                     "inputs=" + std::to_string(h.num_inputs) + " aux=" + std::to_string(h.num_aux) +
                     " domain=" + std::to_string(h.domain_size) + ") needs " + should);
  };
  const std::uint64_t vars = h.num_inputs + h.num_aux;
  if (h.num_inputs == 0 || vars < h.num_inputs || h.domain_size == 0 ||
      (h.domain_size & (h.domain_size - 1)) != 0)
    fail(path, "header: inputs=" + std::to_string(h.num_inputs) + " aux=" +
                   std::to_string(h.num_aux) + " domain=" + std::to_string(h.domain_size) +
                   " is not a circuit (at least one input, a power-of-two domain)");
  expect(0, count_of(0) == 1, "1");
  expect(1, count_of(1) == h.num_inputs, std::to_string(h.num_inputs));
  const auto h_basis = static_cast<HBasis>(h.sections[kHSection].basis);
  const std::uint64_t h_count = h_query_size(h_basis, h.domain_size) + (folds_c(h_basis) ? h.num_inputs : 0);
  expect(kHSection, count_of(kHSection) == h_count,
         std::to_string(h_count) + std::string(" (the ") + h_basis_name(h_basis) + " basis)");
  expect(3, count_of(3) == h.num_aux, std::to_string(h.num_aux));
  expect(4, count_of(4) >= h.num_inputs && count_of(4) <= vars,
         "from " + std::to_string(h.num_inputs) + " to " + std::to_string(vars));
  expect(5, count_of(5) <= vars, "at most " + std::to_string(vars));
  expect(6, count_of(6) == count_of(5), std::to_string(count_of(5)) + " (as many as B_G1)");
}

Header read_header(const std::filesystem::path& path, std::span<const std::uint8_t> f) {
  if (f.size() < sizeof(Header))
    fail(path, "truncated: " + std::to_string(f.size()) + " bytes, shorter than the " +
                   std::to_string(sizeof(Header)) + "-byte header");
  Header h;
  std::memcpy(&h, f.data(), sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0)
    fail(path, "not a prooflab parameter file (bad magic)");
  if (h.version != kParamFileVersion)
    fail(path, "unsupported version " + std::to_string(h.version) + " (this build reads " +
                   std::to_string(kParamFileVersion) + ")");
  if (h.header_bytes != sizeof(Header)) fail(path, "header size mismatch");
  if (h.header_checksum != checksum64(f.data(), offsetof(Header, header_checksum)))
    fail(path, "header checksum mismatch (corrupt header)");
  if (std::strncmp(h.curve, kCurve, sizeof kCurve) != 0)
    fail(path, std::string("written for curve '") + std::string(h.curve, strnlen(h.curve, 16)) +
                   "', expected BLS12-381");
  check_sections(path, h, f.size());
  return h;
}

CircuitShape shape_of(const Header& h) {
  return {h.num_inputs, h.num_aux, h.num_constraints, h.domain_size, h.shape_hash};
}

std::string describe(const CircuitShape& s) {
  return "inputs=" + std::to_string(s.num_inputs) + " aux=" + std::to_string(s.num_aux) +
         " constraints=" + std::to_string(s.num_constraints) +
         " domain=" + std::to_string(s.domain_size) + " shape_hash=" + std::to_string(s.shape_hash);
}

template <class Point, std::size_t N, class Decode>
std::vector<Point> get_points(const std::filesystem::path& path, std::span<const std::uint8_t> f,
                              const SectionEntry& e, Decode&& decode, parallel::ThreadPool& pool) {
  // check_sections vouched for the point size and that count * N bytes lie in the file.
  std::vector<Point> out(e.count);
  pool.parallel_for(e.count, 4096, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      try {
        out[i] = decode(std::span<const std::uint8_t, N>(f.data() + e.offset + i * N, N));
      } catch (const curve::DecodeError& err) {
        fail(path, std::string("section ") + e.name + " point " + std::to_string(i) + ": " +
                       err.what());
      }
    }
  });
  return out;
}

}  // namespace

std::uint64_t checksum64(const std::uint8_t* data, std::size_t size) {
  // Word-at-a-time multiply–rotate mixing (in the style of wyhash/xxhash's inner loop).
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ size;
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, data + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    h ^= h >> 29;
  }
  for (; i < size; ++i) h = (h ^ data[i]) * 0x100000001b3ULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

bool write_param_file(const std::filesystem::path& path, const CircuitShape& shape,
                      const ProvingKey& pk, IfExists if_exists) {
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kParamFileVersion;
  h.header_bytes = sizeof(Header);
  std::memcpy(h.curve, kCurve, sizeof kCurve);
  h.num_inputs = shape.num_inputs;
  h.num_aux = shape.num_aux;
  h.num_constraints = shape.num_constraints;
  h.domain_size = shape.domain_size;
  h.shape_hash = shape.shape_hash;

  std::vector<std::uint8_t> body;
  const auto& vk = pk.vk;
  for (const auto* p : {&vk.alpha_g1, &vk.beta_g1, &vk.delta_g1}) {
    std::array<std::uint8_t, 96> b;
    curve::g1_to_uncompressed(*p, b);
    body.insert(body.end(), b.begin(), b.end());
  }
  for (const auto* p : {&vk.beta_g2, &vk.gamma_g2, &vk.delta_g2}) {
    std::array<std::uint8_t, 192> b;
    curve::g2_to_uncompressed(*p, b);
    body.insert(body.end(), b.begin(), b.end());
  }
  const std::array<std::size_t, kSections> counts = {1,          vk.ic.size(), pk.h.size() + pk.h_inputs.size(),
                                                     pk.l.size(), pk.a.size(),  pk.b_g1.size(),
                                                     pk.b_g2.size()};
  auto g1 = [](const curve::G1Affine& p, std::span<std::uint8_t, 96> o) { curve::g1_to_uncompressed(p, o); };
  auto g2 = [](const curve::G2Affine& p, std::span<std::uint8_t, 192> o) { curve::g2_to_uncompressed(p, o); };
  std::array<std::size_t, kSections> offsets{};
  offsets[0] = sizeof(Header);
  offsets[1] = sizeof(Header) + body.size();
  put_points<curve::G1Affine, 96>(body, vk.ic, g1);
  offsets[2] = sizeof(Header) + body.size();
  put_points<curve::G1Affine, 96>(body, pk.h, g1);
  put_points<curve::G1Affine, 96>(body, pk.h_inputs, g1);
  offsets[3] = sizeof(Header) + body.size();
  put_points<curve::G1Affine, 96>(body, pk.l, g1);
  offsets[4] = sizeof(Header) + body.size();
  put_points<curve::G1Affine, 96>(body, pk.a, g1);
  offsets[5] = sizeof(Header) + body.size();
  put_points<curve::G1Affine, 96>(body, pk.b_g1, g1);
  offsets[6] = sizeof(Header) + body.size();
  put_points<curve::G2Affine, 192>(body, pk.b_g2, g2);
  for (std::size_t s = 0; s < kSections; ++s) {
    auto& e = h.sections[s];
    std::strncpy(e.name, kParamSectionNames[s], sizeof e.name);
    e.offset = offsets[s];
    e.count = counts[s];
    e.point_bytes = kParamPointBytes[s];
    e.basis = s == kHSection ? static_cast<std::uint32_t>(pk.h_basis) : 0;
  }
  h.body_checksum = checksum64(body.data(), body.size());
  h.header_checksum =
      checksum64(reinterpret_cast<const std::uint8_t*>(&h), offsetof(Header, header_checksum));

  // Whole or not at all (a crash or a full disk never leaves half a file in the cache), and
  // never over another writer's file: the key a process proves with is the key on disk.
  const std::string_view parts[] = {
      {reinterpret_cast<const char*>(&h), sizeof h},
      {reinterpret_cast<const char*>(body.data()), body.size()}};
  try {
    if (if_exists == IfExists::kReplace) {
      io::write_file_atomically(path, {parts[0], parts[1]});
      return true;
    }
    return io::create_file_atomically(path, {parts[0], parts[1]});
  } catch (const io::FileWriteError& e) {
    fail(path, e.what());
  }
}

CircuitShape read_param_file_shape(const std::filesystem::path& path) {
  const MappedFile f(path);
  return shape_of(read_header(path, {f.data(), f.size()}));
}

ProvingKey read_param_file(const std::filesystem::path& path, parallel::ThreadPool& pool,
                           const CircuitShape* expected) {
  const MappedFile f(path);
  return read_param_bytes({f.data(), f.size()}, path, pool, expected);
}

ProvingKey read_param_bytes(std::span<const std::uint8_t> f, const std::filesystem::path& path,
                            parallel::ThreadPool& pool, const CircuitShape* expected) {
  const Header h = read_header(path, f);
  if (expected && !(shape_of(h) == *expected))
    fail(path, "made for another circuit shape: file has " + describe(shape_of(h)) +
                   ", expected " + describe(*expected));
  if (checksum64(f.data() + sizeof(Header), f.size() - sizeof(Header)) != h.body_checksum)
    fail(path, "body checksum mismatch (corrupt or modified file)");

  const auto skip = curve::SubgroupCheck::kNo;
  auto g1 = [&](std::span<const std::uint8_t, 96> b) { return curve::g1_from_uncompressed(b, skip); };
  auto g2 = [&](std::span<const std::uint8_t, 192> b) { return curve::g2_from_uncompressed(b, skip); };
  ProvingKey pk;
  pk.h_basis = static_cast<HBasis>(h.sections[kHSection].basis);
  try {
    const std::uint8_t* vkb = f.data() + h.sections[0].offset;
    pk.vk.alpha_g1 = g1(std::span<const std::uint8_t, 96>(vkb, 96));
    pk.vk.beta_g1 = g1(std::span<const std::uint8_t, 96>(vkb + 96, 96));
    pk.vk.delta_g1 = g1(std::span<const std::uint8_t, 96>(vkb + 192, 96));
    pk.vk.beta_g2 = g2(std::span<const std::uint8_t, 192>(vkb + 288, 192));
    pk.vk.gamma_g2 = g2(std::span<const std::uint8_t, 192>(vkb + 480, 192));
    pk.vk.delta_g2 = g2(std::span<const std::uint8_t, 192>(vkb + 672, 192));
  } catch (const curve::DecodeError& err) {
    fail(path, std::string("section VK: ") + err.what());
  }
  pk.vk.ic = get_points<curve::G1Affine, 96>(path, f, h.sections[1], g1, pool);
  pk.h = get_points<curve::G1Affine, 96>(path, f, h.sections[2], g1, pool);
  if (folds_c(pk.h_basis)) {  // the coset points, then the inputs' share of C (check_sections counted them)
    const auto split = pk.h.end() - static_cast<std::ptrdiff_t>(h.num_inputs);
    pk.h_inputs.assign(split, pk.h.end());
    pk.h.erase(split, pk.h.end());
  }
  pk.l = get_points<curve::G1Affine, 96>(path, f, h.sections[3], g1, pool);
  pk.a = get_points<curve::G1Affine, 96>(path, f, h.sections[4], g1, pool);
  pk.b_g1 = get_points<curve::G1Affine, 96>(path, f, h.sections[5], g1, pool);
  pk.b_g2 = get_points<curve::G2Affine, 192>(path, f, h.sections[6], g2, pool);
  return pk;
}

void reseal_param_bytes(std::span<std::uint8_t> f) {
  if (f.size() < sizeof(Header)) return;
  const std::uint64_t body = checksum64(f.data() + sizeof(Header), f.size() - sizeof(Header));
  std::memcpy(f.data() + offsetof(Header, body_checksum), &body, sizeof body);
  const std::uint64_t head = checksum64(f.data(), offsetof(Header, header_checksum));
  std::memcpy(f.data() + offsetof(Header, header_checksum), &head, sizeof head);
}

}  // namespace prooflab::groth16
