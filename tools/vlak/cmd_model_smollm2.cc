// `vlak model smollm2`: greedy text generation with SmolLM2-135M-Instruct (src/models/llama.h).
//   vlak model smollm2 [--model FILE.gguf] -p PROMPT [-n N] [--threads N] [--chat] [--quantized|--auto] [--ids]
// Prints the generated text to stdout; the prompt's and generated token counts, prefill and decode
// tokens/s and the thread count to stderr. The last of --repeat generations (prefill and decode) is
// the one reported, and the region the qemu-icount plugin counts under scripts/rvv-run.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "icount_marker.h"
#include "models/llama.h"
#include "models/model_dir.h"
#include "vlak/vlak.h"

namespace vlak::cli {

namespace {

constexpr const char* kFile = "SmolLM2-135M-Instruct.Q4_1.gguf";

int SmolUsage(FILE* out) {
  std::fprintf(out,
               "usage: vlak model smollm2 [--model FILE.gguf] -p PROMPT [-n N] [--threads N] [--chat] [--quantized|--auto] [--ids] [--prefill N] [--repeat N]\n"
               "  smollm2        SmolLM2-135M-Instruct, greedy decoding\n"
               "  --model FILE   the GGUF file (default: %s,\n"
               "                 installed by scripts/models install smollm2)\n"
               "  -p PROMPT      the prompt text (special tokens such as <|im_start|> are parsed)\n"
               "  -n N           tokens to generate (default 64); stops early at an end token with --chat\n"
               "  --threads N    threads (default: all cores)\n"
               "  --chat         wrap the prompt in the model's chat template as a user message\n"
               "  --quantized    int8 activations (ggml's arithmetic) in every matmul, not the exact weights\n"
               "  --auto         int8 activations below 16 rows (decode), exact weights above (prefill)\n"
               "  --prefill N    make the prompt exactly N tokens (its ids repeated or cut): a prefill of N\n"
               "  --repeat N     generate N times, report the last (default 1; the first pays the file's page faults)\n"
               "  --ids          also print the prompt's and the generated token ids to stderr\n",
               vlak::models::DefaultModelDir(kFile).c_str());
  return out == stdout ? 0 : 2;
}

}  // namespace

int SmolLM2Command(int argc, char** argv) {
  std::string path = vlak::models::DefaultModelDir(kFile), prompt;
  bool have_prompt = false, chat = false, ids = false;
  long n = 64, prefill = 0, repeat = 1;
  int threads = 0;
  vlak::models::Llama::MatmulMode mode = vlak::models::Llama::MatmulMode::kExact;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* what) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "vlak model smollm2: %s wants a value\n", what);
        return nullptr;
      }
      return argv[++i];
    };
    // The option's value as a whole number in [lo, hi] into *out, or false with a message.
    auto count = [&](const char* what, long lo, long hi, const char* range, long* out) {
      const char* v = value(what);
      char* end = nullptr;
      const long x = v ? std::strtol(v, &end, 10) : 0;
      if (!v || *end != '\0' || x < lo || x > hi) {
        std::fprintf(stderr, "vlak model smollm2: %s wants a count %s\n", what, range);
        return false;
      }
      *out = x;
      return true;
    };
    if (a == "-h" || a == "--help") return SmolUsage(stdout);
    if (a == "--model") {
      const char* v = value("--model");
      if (!v) return 2;
      path = v;
    } else if (a == "-p" || a == "--prompt") {
      const char* v = value("-p");
      if (!v) return 2;
      prompt = v, have_prompt = true;
    } else if (a == "-n") {
      if (!count("-n", 0, 1000000, "from 0", &n)) return 2;
    } else if (a == "--prefill") {
      if (!count("--prefill", 1, 1000000, "from 1", &prefill)) return 2;
    } else if (a == "--repeat") {
      if (!count("--repeat", 1, 1000, "from 1 to 1000", &repeat)) return 2;
    } else if (a == "--threads") {
      long t = 0;
      if (!count("--threads", 1, 1024, "from 1 to 1024", &t)) return 2;
      threads = static_cast<int>(t);
    } else if (a == "--chat") {
      chat = true;
    } else if (a == "--quantized") {
      mode = vlak::models::Llama::MatmulMode::kQuantized;
    } else if (a == "--auto") {
      mode = vlak::models::Llama::MatmulMode::kAuto;
    } else if (a == "--ids") {
      ids = true;
    } else {
      std::fprintf(stderr, "vlak model smollm2: unknown option '%s'\n", a.c_str());
      return SmolUsage(stderr);
    }
  }
  if (!have_prompt) {
    std::fprintf(stderr, "vlak model smollm2: no prompt given (-p PROMPT)\n");
    return 2;
  }
  if (threads > 0) vlak_set_num_threads(threads);
  vlak::models::Llama model;
  std::string err;
  if (!model.Load(path, &err)) {
    std::fprintf(stderr, "vlak model smollm2: %s\n", err.c_str());
    std::fprintf(stderr, "  (install the model with scripts/models install smollm2, or pass --model FILE.gguf)\n");
    return 1;
  }
  model.set_matmul_mode(mode);
  const std::string text = chat ? model.ChatPrompt(prompt) : prompt;
  std::vector<int32_t> in = model.tokenizer().Encode(text);
  if (in.empty()) {
    std::fprintf(stderr, "vlak model smollm2: the prompt gives no tokens\n");
    return 1;
  }
  if (prefill > 0) {
    std::vector<int32_t> p(static_cast<size_t>(prefill));
    for (size_t i = 0; i < p.size(); ++i) p[i] = in[i % in.size()];
    in = p;
  }
  std::vector<int32_t> out;
  vlak::models::LlamaStats st;
  bool ok = true;
  for (long r = 0; r < repeat && ok; ++r) {
    if (r + 1 == repeat) vlak_icount_begin();
    ok = model.Generate(in, static_cast<size_t>(n), &out, &err, &st, chat);
    if (r + 1 == repeat) vlak_icount_end();
  }
  if (!ok) {
    std::fprintf(stderr, "vlak model smollm2: %s\n", err.c_str());
    return 1;
  }
  std::printf("%s\n", model.tokenizer().Decode(out).c_str());
  if (ids) {
    std::fprintf(stderr, "prompt ids:");
    for (int32_t t : in) std::fprintf(stderr, " %d", t);
    std::fprintf(stderr, "\ngenerated ids:");
    for (int32_t t : out) std::fprintf(stderr, " %d", t);
    std::fprintf(stderr, "\n");
  }
  const size_t steps = out.size() > 1 ? out.size() - 1 : 0;  // forward passes after the prefill
  std::fprintf(stderr,
               "smollm2: prompt %zu tokens, prefill %.1f tokens/s (%.1f ms); generated %zu, decode %.1f tokens/s "
               "(%zu steps, %.1f ms); %d threads, target %s, %s\n",
               st.prompt_tokens, st.prefill_s > 0 ? st.prompt_tokens / st.prefill_s : 0.0, st.prefill_s * 1e3,
               out.size(), st.decode_s > 0 ? steps / st.decode_s : 0.0, steps, st.decode_s * 1e3,
               vlak_get_num_threads(), vlak_target_name(vlak_active_target()),
               vlak::models::Llama::ModeName(mode));
  return 0;
}

}  // namespace vlak::cli
