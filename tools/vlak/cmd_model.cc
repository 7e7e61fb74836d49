// `vlak model`: run a model on vlak's kernels.
//   vlak model minilm [--model DIR] [--threads N] [--repeat N] [--similarity] [--profile] SENTENCE...
//   vlak model smollm2 [--model FILE.gguf] -p PROMPT [-n N] [--threads N] [--chat] (cmd_model_smollm2.cc)
// minilm: all-MiniLM-L6-v2 sentence embeddings (src/models/minilm.h). Prints one line per sentence
// with its 384 floats, or with --similarity the cosine of every pair; the time to stderr (of the
// last of --repeat runs, which alone is marked as the region of the qemu-icount plugin: under
// scripts/rvv-run its instructions are the forward pass's, without loading and first calls).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "icount_marker.h"
#include "models/minilm.h"
#include "models/model_dir.h"
#include "vlak/vlak.h"

namespace vlak::cli {
int SmolLM2Command(int argc, char** argv);  // cmd_model_smollm2.cc
namespace {

int Usage(FILE* out) {
  std::fprintf(out,
               "usage: vlak model minilm [--model DIR] [--threads N] [--repeat N] [--similarity] [--profile] SENTENCE...\n"
               "       vlak model smollm2 [--model FILE.gguf] -p PROMPT [-n N] [--threads N] [--chat] (see --help)\n"
               "  minilm        all-MiniLM-L6-v2 sentence embeddings (384 floats, unit length)\n"
               "  --model DIR   the model folder (default: %s,\n"
               "                installed by scripts/models install minilm)\n"
               "  --threads N   threads (default: all cores)\n"
               "  --repeat N    encode N times, report the last (default 1)\n"
               "  --similarity  print the cosine similarity of every pair instead of the embeddings\n"
               "  --profile     print the time per operator to stderr\n",
               vlak::models::DefaultModelDir("all-MiniLM-L6-v2").c_str());
  return out == stdout ? 0 : 2;
}

int MiniLMCommand(int argc, char** argv) {
  std::string dir = vlak::models::DefaultModelDir("all-MiniLM-L6-v2");
  bool similarity = false, profile = false;
  int threads = 0;
  long repeat = 1;
  std::vector<std::string> texts;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") return Usage(stdout);
    if (a == "--model" && i + 1 < argc) {
      dir = argv[++i];
    } else if (a == "--threads" && i + 1 < argc) {
      char* end = nullptr;
      const long t = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || t < 1 || t > 1024) {
        std::fprintf(stderr, "vlak model minilm: --threads wants a count from 1 to 1024, not '%s'\n", argv[i]);
        return 2;
      }
      threads = static_cast<int>(t);
    } else if (a == "--repeat" && i + 1 < argc) {
      char* end = nullptr;
      repeat = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || repeat < 1 || repeat > 1000000) {
        std::fprintf(stderr, "vlak model minilm: --repeat wants a count from 1, not '%s'\n", argv[i]);
        return 2;
      }
    } else if (a == "--similarity") {
      similarity = true;
    } else if (a == "--profile") {
      profile = true;
    } else if (a.size() > 1 && a[0] == '-' && a[1] == '-') {
      std::fprintf(stderr, "vlak model minilm: unknown option '%s'\n", a.c_str());
      return Usage(stderr);
    } else {
      texts.push_back(a);
    }
  }
  if (texts.empty()) {
    std::fprintf(stderr, "vlak model minilm: no sentence given\n");
    return Usage(stderr);
  }
  if (vlak_set_num_threads(threads) != VLAK_OK) return 2;
  vlak::models::MiniLM model;
  std::string err;
  const auto t0 = std::chrono::steady_clock::now();
  if (!model.Load(dir, &err)) {
    std::fprintf(stderr, "vlak model minilm: %s\n", err.c_str());
    if (err.find("config.json: cannot open") != std::string::npos) {
      std::fprintf(stderr, "  (install the model with scripts/models install minilm, or pass --model DIR)\n");
    }
    return 1;
  }
  const auto t_loaded = std::chrono::steady_clock::now();
  std::vector<float> emb;
  vlak::models::MiniLMProfile prof;
  for (long r = 1; r < repeat; ++r) {
    if (!model.Encode(texts, &emb, &err)) {
      std::fprintf(stderr, "vlak model minilm: %s\n", err.c_str());
      return 1;
    }
  }
  const auto t1 = std::chrono::steady_clock::now();
  vlak_icount_begin();
  const bool ok = model.Encode(texts, &emb, &err, profile ? &prof : nullptr);
  vlak_icount_end();
  const auto t2 = std::chrono::steady_clock::now();
  if (!ok) {
    std::fprintf(stderr, "vlak model minilm: %s\n", err.c_str());
    return 1;
  }
  size_t tokens = 0;
  for (const std::string& t : texts) tokens += model.tokenizer().Encode(t).size();
  const size_t d = model.dim(), n = texts.size();
  if (similarity) {
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = i + 1; j < n; ++j) {
        double dot = 0;
        for (size_t c = 0; c < d; ++c) dot += static_cast<double>(emb[i * d + c]) * emb[j * d + c];
        std::printf("%.4f  \"%s\"  \"%s\"\n", dot, texts[i].c_str(), texts[j].c_str());
      }
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      std::printf("%zu", i);
      for (size_t c = 0; c < d; ++c) std::printf(" %.8g", emb[i * d + c]);
      std::printf("\n");
    }
  }
  const double load_ms = std::chrono::duration<double, std::milli>(t_loaded - t0).count();
  const double run_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  std::fprintf(stderr,
               "minilm: %zu sentences (%zu tokens) in %.2f ms (%.1f sentences/s), %d threads, target %s; load %.1f ms\n",
               n, tokens, run_ms, 1e3 * static_cast<double>(n) / run_ms, vlak_get_num_threads(),
               vlak_target_name(vlak_active_target()), load_ms);
  if (profile) {
    const double total = prof.Total();
    for (int p = 0; p < vlak::models::MiniLMProfile::kParts; ++p) {
      std::fprintf(stderr, "  %-14s %9.3f ms  %5.1f %%\n", vlak::models::MiniLMProfile::Name(p), prof.ns[p] * 1e-6,
                   total > 0 ? 100.0 * prof.ns[p] / total : 0.0);
    }
  }
  return 0;
}

}  // namespace

int CmdModel(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0) {
    return Usage(argc < 2 ? stderr : stdout);
  }
  if (std::strcmp(argv[1], "minilm") == 0) return MiniLMCommand(argc - 2, argv + 2);
  if (std::strcmp(argv[1], "smollm2") == 0) return SmolLM2Command(argc - 2, argv + 2);
  std::fprintf(stderr, "vlak model: unknown model '%s' (valid: minilm, smollm2)\n", argv[1]);
  return 2;
}

}  // namespace vlak::cli
