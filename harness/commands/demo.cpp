// `prooflab demo`: a tour of the arithmetic core with known answers and rough timings.
// It is what `make run` runs until the prover and the default experiment exist.
#include <chrono>
#include <cstdio>
#include <random>

#include "core/curve/serialize.hpp"
#include "core/pairing/pairing.hpp"
#include "harness/commands/commands.hpp"

namespace prooflab::harness {
namespace {

template <class Fn>
double time_ns(int iters, Fn&& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) fn();
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
         iters;
}

std::string hex(std::span<const std::uint8_t> bytes) {
  std::string s;
  char buf[3];
  for (auto b : bytes) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    s += buf;
  }
  return s;
}

int run_demo() {
  using namespace prooflab::curve;
  using prooflab::field::Fr;
  std::mt19937_64 rng(2026);
  const G1Affine g1 = g1_generator();
  const G2Affine g2 = g2_generator();

  std::array<std::uint8_t, kG1CompressedBytes> c1;
  g1_to_compressed(g1, c1);
  std::printf("G1 generator (compressed): %s\n", hex(c1).c_str());
  const G1Affine two = G1Jacobian::from_affine(g1).dbl().to_affine();
  g1_to_compressed(two, c1);
  std::printf("2·G1        (compressed): %s\n", hex(c1).c_str());

  const Fr a = Fr::random(rng), b = Fr::random(rng);
  const G1Affine ap = scalar_mul(G1Jacobian::from_affine(g1), a).to_affine();
  const G2Affine bq = scalar_mul(G2Jacobian::from_affine(g2), b).to_affine();
  const auto lhs = pairing::pairing(ap, bq);
  const auto rhs = pairing::pairing(g1, g2).pow((a * b).to_canonical());
  const bool bilinear = lhs == rhs;
  std::printf("bilinearity e(aP, bQ) == e(P, Q)^(ab) for random a, b: %s\n",
              bilinear ? "ok" : "FAILED");

  field::Fp x = field::Fp::random(rng), y = field::Fp::random(rng);
  const double fp_mul = time_ns(1'000'000, [&] { x *= y; });
  G1Jacobian acc = G1Jacobian::from_affine(g1);
  const double g1_madd = time_ns(100'000, [&] { acc = acc.add_mixed(two); });
  const double pair_us = time_ns(20, [&] { (void)pairing::pairing(g1, g2); }) / 1000;
  std::printf("rough timings (one core; use build/bench/prooflab_bench for real figures):\n"
              "  Fp mul %.1f ns, G1 mixed add %.0f ns, pairing %.0f us\n",
              fp_mul, g1_madd, pair_us);
  std::printf("(sink %lx %d)\n", static_cast<unsigned long>(x.mont[0]), acc.is_infinity());
  return bilinear ? 0 : 1;
}

}  // namespace

void add_demo_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("demo", "Tour of the BLS12-381 arithmetic core with known answers");
  cmd->callback([] {
    if (run_demo() != 0) throw std::runtime_error("demo: a known-answer check failed");
  });
}

}  // namespace prooflab::harness
