// Every entry point called from 8 threads at once (oversubscribed on small machines), with
// different shapes and flags per thread, while another thread changes vlak_set_num_threads or the
// target. Each result must equal the one computed alone beforehand, bit for bit (no result depends
// on the thread count), except where vlak.h lets it depend on the target (the norms, softmax, exp:
// equal to the result of one of the targets).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "ops/ops_test_util.h"
#include "vlak/sfpi.h"
#include "vlak/vlak.h"

namespace {

using vlak_test::Normal;
using vlak_test::SameBits;

// One job: computes its outputs into `out` (all outputs concatenated) and returns the status.
struct Job {
  std::function<vlak_status(std::vector<float>& out)> run;
  bool same_on_every_target;  // rope, matmul, resize, warp, correlation
};

std::vector<Job> MakeJobs(uint32_t seed) {
  std::vector<Job> jobs;
  // Large enough (r x c >= 2 x 16K) that the calls split over the library's own threads.
  const size_t r = 12 + seed % 5, c = 3000 + 37 * (seed % 7);
  auto x = std::make_shared<std::vector<float>>(Normal(r * c, 1.0f, 2.0f, seed));
  auto g = std::make_shared<std::vector<float>>(Normal(c, 1.0f, 0.3f, seed + 1));
  jobs.push_back({[=](std::vector<float>& out) {
                    out.resize(r * c);
                    return vlak_softmax_f32(r, c, x->data(), c, out.data(), c, (seed & 1) ? VLAK_SOFTMAX_LOG : 0);
                  },
                  false});
  jobs.push_back({[=](std::vector<float>& out) {
                    out.resize(r * c);
                    return vlak_exp_f32(r * c, x->data(), out.data(), static_cast<vlak_exp_variant>(seed % 6));
                  },
                  false});
  jobs.push_back({[=](std::vector<float>& out) {
                    out.resize(r * c + 2 * r);
                    return vlak_layernorm_f32(r, c, x->data(), c, g->data(), nullptr, 1e-5f, out.data(), c,
                                              out.data() + r * c, out.data() + r * c + r);
                  },
                  false});
  // The backward's inputs once, here: computed inside the job, a target switch between the two
  // calls would mix two targets' statistics into one result.
  auto mean = std::make_shared<std::vector<float>>(r), rstd = std::make_shared<std::vector<float>>(r);
  auto dy = std::make_shared<std::vector<float>>(Normal(r * c, 0.0f, 1.0f, seed + 4));
  std::vector<float> y(r * c);
  vlak_layernorm_f32(r, c, x->data(), c, nullptr, nullptr, 1e-5f, y.data(), c, mean->data(), rstd->data());
  jobs.push_back({[=](std::vector<float>& out) {
                    out.resize(r * c + 2 * c);
                    return vlak_layernorm_backward_f32(r, c, dy->data(), x->data(), c, g->data(), mean->data(),
                                                       rstd->data(), out.data(), out.data() + r * c,
                                                       out.data() + r * c + c);
                  },
                  false});
  jobs.push_back({[=](std::vector<float>& out) {
                    out.resize(r * c);
                    return vlak_rmsnorm_f32(r, c, x->data(), c, g->data(), 1e-6f, out.data(), c);
                  },
                  false});
  jobs.push_back({[=](std::vector<float>& out) {
                    const size_t positions = r, rows = 2, d = 2 * (c / 4);
                    std::vector<float> cs(positions * d / 2), sn(positions * d / 2);
                    vlak_rope_tables_f32(positions, d, 10000.0, cs.data(), sn.data(), d / 2);
                    out.resize(positions * rows * d);
                    return vlak_rope_f32(positions, rows, d, x->data(), cs.data(), sn.data(), d / 2, out.data(),
                                         (seed & 2) ? VLAK_ROPE_INTERLEAVED : VLAK_ROPE_HALVES);
                  },
                  true});
  // int8 softmax: a different input_scale per worker (each thread keeps its own exp tables).
  auto q = std::make_shared<std::vector<int8_t>>(r * c);
  for (size_t i = 0; i < r * c; ++i) (*q)[i] = static_cast<int8_t>(std::lround(std::fmax(-128.0f, std::fmin(127.0f, 30.0f * (*x)[i]))));
  jobs.push_back({[=](std::vector<float>& out) {
                    std::vector<int8_t> y(r * c);
                    const vlak_status st = vlak_softmax_i8(r, c, q->data(), c, 0.02f + 0.01f * static_cast<float>(seed % 5),
                                                           y.data(), c, (seed & 8) ? VLAK_SOFTMAX_I8_LUT : 0);
                    out.assign(y.begin(), y.end());
                    return st;
                  },
                  (seed & 8) == 0});  // TFLITE: the same bits on every target; LUT: per target
  jobs.push_back({[=](std::vector<float>& out) {
                    // The same bytes read as uint8 (zero point 0): a different row maximum and range.
                    std::vector<uint8_t> y(r * c);
                    const vlak_status st =
                        vlak_softmax_u8(r, c, reinterpret_cast<const uint8_t*>(q->data()), c,
                                        0.03f + 0.01f * static_cast<float>(seed % 3), y.data(), c,
                                        (seed & 2) ? VLAK_SOFTMAX_I8_LUT : 0);
                    out.assign(y.begin(), y.end());
                    return st;
                  },
                  (seed & 2) == 0});
  const size_t m = r, n = c / 3, k = 17 + seed % 40;
  auto a = std::make_shared<std::vector<float>>(Normal(m * k, 0.0f, 1.0f, seed + 2));
  auto b = std::make_shared<std::vector<float>>(Normal(k * n, 0.0f, 1.0f, seed + 3));
  jobs.push_back({[=](std::vector<float>& out) {
                    out.assign(m * n, 1.0f);
                    return vlak_matmul_f32(m, n, k, a->data(), k, b->data(), n, out.data(), n,
                                           (seed & 4) ? VLAK_MATMUL_ACCUMULATE : 0);
                  },
                  true});
  // Resize: 3 planes of 16 x (c / 10) pixels to 32 x (c / 5) (Terapines AI-Benchmark's 2x, contiguous-load path)
  // and to 29 x (c / 7) with the half-pixel mapping (the gather path); bytes compared as floats.
  const size_t ih = 16, iw = c / 10;
  auto pix = std::make_shared<std::vector<uint8_t>>(3 * ih * iw);
  for (size_t i = 0; i < pix->size(); ++i) (*pix)[i] = static_cast<uint8_t>((i * 2654435761u + seed) >> 13);
  jobs.push_back({[=](std::vector<float>& out) {
                    const size_t oh = 2 * ih, ow = 2 * iw;
                    std::vector<uint8_t> o(3 * oh * ow);
                    const vlak_status st = vlak_resize_bilinear_u8(3, ih, iw, pix->data(), oh, ow, o.data(), 0);
                    out.assign(o.begin(), o.end());
                    return st;
                  },
                  true});
  jobs.push_back({[=](std::vector<float>& out) {
                    const size_t oh = 29, ow = c / 7;
                    std::vector<int8_t> o(3 * oh * ow);
                    const vlak_status st = vlak_resize_bilinear_i8(3, ih, iw, reinterpret_cast<const int8_t*>(pix->data()),
                                                                   oh, ow, o.data(), VLAK_RESIZE_HALF_PIXEL);
                    out.assign(o.begin(), o.end());
                    return st;
                  },
                  true});
  // SFPI kernels over tiles (C++ API, vlak/sfpi.h): the same bits on every target.
  jobs.push_back({[=](std::vector<float>& out) {
                    const size_t tiles = 30 + seed % 3;  // <= 32 tiles: within x (r x c >= 36,000)
                    out.assign(x->begin(), x->begin() + static_cast<std::ptrdiff_t>(tiles * 1024));
                    return ::vlak::sfpi::RunKernel((seed & 1) ? "recip" : "exp-accurate", out.data(), tiles, seed) == 0
                               ? VLAK_OK
                               : VLAK_ERROR_INVALID_ARGUMENT;
                  },
                  true});
  // The int8 image operators (bytes widened to the float outputs): the same bytes everywhere.
  auto pixels = std::make_shared<std::vector<int8_t>>(3 * r * c);
  auto offsets = std::make_shared<std::vector<int16_t>>(r * c);
  for (size_t i = 0; i < pixels->size(); ++i) (*pixels)[i] = static_cast<int8_t>((i * 2654435761u + seed) >> 13);
  for (size_t i = 0; i < offsets->size(); ++i) (*offsets)[i] = static_cast<int16_t>((i * 40503u + seed) % 8192) - 4096;
  jobs.push_back({[=](std::vector<float>& out) {
                    std::vector<int8_t> bytes(3 * r * c);
                    const vlak_status st = vlak_warp_i8(3, r, c, pixels->data(), offsets->data(), bytes.data());
                    out.assign(bytes.begin(), bytes.end());
                    return st;
                  },
                  true});
  jobs.push_back({[=](std::vector<float>& out) {
                    const size_t channels = 3, width = c / 3, displacements = 5;
                    std::vector<int8_t> bytes(displacements * r * width);
                    const vlak_status st = vlak_correlation_i8(displacements, channels, r, width, pixels->data(),
                                                               pixels->data() + channels * r * width, seed % 12,
                                                               bytes.data(), (seed & 1) ? VLAK_CORRELATION_WRAP16 : 0);
                    out.assign(bytes.begin(), bytes.end());
                    return st;
                  },
                  true});
  return jobs;
}

// What a job may give: its result alone on each supported target.
std::vector<std::vector<float>> Expected(Job& job, bool every_target) {
  std::vector<std::vector<float>> want;
  const vlak_target saved = vlak_active_target();
  for (int t = VLAK_TARGET_SCALAR; t <= VLAK_TARGET_RVV; ++t) {
    const auto target = static_cast<vlak_target>(t);
    if (!vlak_target_supported(target) || (!every_target && target != saved)) continue;
    EXPECT_EQ(vlak_set_target(target), VLAK_OK);
    std::vector<float> out;
    EXPECT_EQ(job.run(out), VLAK_OK);
    want.push_back(std::move(out));
  }
  EXPECT_EQ(vlak_set_target(saved), VLAK_OK);
  return want;
}

// 8 workers run every job of their own RNG seed, 3 times, while `disturb` runs until they finish.
void RunConcurrently(bool every_target, const std::function<void(std::atomic<bool>&)>& disturb) {
  constexpr int kWorkers = 8;
  std::vector<std::vector<Job>> jobs;
  std::vector<std::vector<std::vector<std::vector<float>>>> want;
  for (int w = 0; w < kWorkers; ++w) {
    jobs.push_back(MakeJobs(100 + w));
    want.emplace_back();
    for (Job& j : jobs.back()) want.back().push_back(Expected(j, every_target));
  }
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::thread disturber([&] { disturb(done); });
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&, w] {
      for (int rep = 0; rep < 3; ++rep) {
        for (size_t j = 0; j < jobs[w].size(); ++j) {
          std::vector<float> out;
          if (jobs[w][j].run(out) != VLAK_OK) ++failures;
          bool ok = false;
          for (const auto& cand : want[w][j]) {
            ok = ok || (out.size() == cand.size() && SameBits(out.data(), cand.data(), out.size()));
          }
          if (!ok) {
            ++failures;
            ADD_FAILURE() << "worker " << w << " job " << j << " repetition " << rep;
          }
        }
      }
    });
  }
  for (auto& t : workers) t.join();
  done = true;
  disturber.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(Concurrency, EveryEntryPointWhileTheThreadCountChanges) {
  RunConcurrently(false, [](std::atomic<bool>& done) {
    for (int i = 0; !done; ++i) {
      EXPECT_EQ(vlak_set_num_threads(1 + i % 3), VLAK_OK);
      std::this_thread::yield();
    }
    vlak_set_num_threads(0);
  });
}

TEST(Concurrency, EveryEntryPointWhileTheTargetChanges) {
  const vlak_target saved = vlak_active_target();
  RunConcurrently(true, [saved](std::atomic<bool>& done) {
    for (int i = 0; !done; ++i) {
      const auto t = static_cast<vlak_target>(i % 4);
      if (vlak_target_supported(t)) EXPECT_EQ(vlak_set_target(t), VLAK_OK);
      std::this_thread::yield();
    }
    EXPECT_EQ(vlak_set_target(saved), VLAK_OK);
  });
}

}  // namespace
