// llama-peer: a GGUF model run greedily through llama.cpp's C API (llama.h) from the peer build,
// printing the prompt's token ids, then per generated token its id, text and the top logits, and
// prefill / decode tokens/s; on RISC-V the decode loop (or the prefill) lies between the
// qemu-icount plugin's region markers, so scripts/rvv-run reports its instructions.
//
//   llama-peer -m MODEL.gguf [-p PROMPT] [-n 8] [-t 1] [--top 5] [--region decode|prefill]
//
// Unlike llama-simple it sets the thread count (llama-simple keeps ggml's default of 4, whose
// spinning workers would also be counted under qemu) and the sampling is a plain argmax (lowest
// id on a tie), with no sampler state.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include <llama.h>

#include "icount_marker.h"

namespace {

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr, "llama-peer: %s\nusage: llama-peer -m MODEL.gguf [-p PROMPT] [-n N] [-t THREADS] [--top K] "
                       "[--region decode|prefill]\n", why);
  std::exit(2);
}

std::string Piece(const llama_vocab* vocab, llama_token t) {
  char buf[256];
  const int n = llama_token_to_piece(vocab, t, buf, sizeof buf, 0, true);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

std::string Escaped(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '\n') o += "\\n";
    else if (c == '"') o += "\\\"";
    else o += c;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_path, prompt = "The capital of France is", region = "decode";
  int n_gen = 8, threads = 1, top = 5;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) Usage("an option without a value");
    const std::string o = argv[i], v = argv[i + 1];
    if (o == "-m") model_path = v;
    else if (o == "-p") prompt = v;
    else if (o == "-n") n_gen = std::atoi(v.c_str());
    else if (o == "-t") threads = std::atoi(v.c_str());
    else if (o == "--top") top = std::atoi(v.c_str());
    else if (o == "--region") region = v;
    else Usage(("unknown option " + o).c_str());
  }
  if (model_path.empty()) Usage("no -m MODEL");
  if (n_gen < 1 || threads < 1 || top < 1 || (region != "decode" && region != "prefill")) Usage("bad value");

  llama_log_set([](ggml_log_level level, const char* text, void*) {
    if (level == GGML_LOG_LEVEL_ERROR) std::fputs(text, stderr);
  }, nullptr);
  llama_backend_init();
  llama_model_params mp = llama_model_default_params();
  llama_model* model = llama_model_load_from_file(model_path.c_str(), mp);
  if (!model) {
    std::fprintf(stderr, "llama-peer: cannot load %s\n", model_path.c_str());
    return 1;
  }
  const llama_vocab* vocab = llama_model_get_vocab(model);
  const int n_prompt = -llama_tokenize(vocab, prompt.c_str(), static_cast<int32_t>(prompt.size()), nullptr, 0, true, true);
  std::vector<llama_token> tokens(static_cast<size_t>(std::max(n_prompt, 1)));
  if (n_prompt < 1 || llama_tokenize(vocab, prompt.c_str(), static_cast<int32_t>(prompt.size()), tokens.data(),
                                     static_cast<int32_t>(tokens.size()), true, true) < 0) {
    std::fprintf(stderr, "llama-peer: cannot tokenize the prompt\n");
    return 1;
  }
  llama_context_params cp = llama_context_default_params();
  cp.n_ctx = static_cast<uint32_t>(n_prompt + n_gen + 1);
  cp.n_batch = static_cast<uint32_t>(n_prompt);
  cp.n_threads = threads;
  cp.n_threads_batch = threads;
  llama_context* ctx = llama_init_from_model(model, cp);
  if (!ctx) {
    std::fprintf(stderr, "llama-peer: cannot create the context\n");
    return 1;
  }
  const int n_vocab = llama_vocab_n_tokens(vocab);

  std::printf("prompt \"%s\" tokens", Escaped(prompt).c_str());
  for (llama_token t : tokens) std::printf(" %d", t);
  std::printf("\nthreads %d\n", threads);

  using clock = std::chrono::steady_clock;
  std::vector<int> order(static_cast<size_t>(n_vocab));
  std::string text;
  double prefill_s = 0, decode_s = 0;
  int decoded = 0;  // single-token decodes
  llama_token next = 0;
  for (int step = 0; step <= n_gen; ++step) {
    // step 0: the prompt; step s: the token chosen at step s - 1
    llama_batch batch = step == 0 ? llama_batch_get_one(tokens.data(), n_prompt) : llama_batch_get_one(&next, 1);
    const bool counted = (step == 0) == (region == "prefill");
    if (counted && (step == 0 || step == 1)) vlak_icount_begin();
    const auto t0 = clock::now();
    if (llama_decode(ctx, batch) != 0) {
      std::fprintf(stderr, "llama-peer: llama_decode failed at step %d\n", step);
      return 1;
    }
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    if (counted && (step == 0 || step == n_gen)) vlak_icount_end();
    (step == 0 ? prefill_s : decode_s) += s;
    if (step > 0) ++decoded;
    if (step == n_gen) break;
    const float* logits = llama_get_logits_ith(ctx, -1);
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + top, order.end(), [&](int a, int b) {
      return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
    });
    next = order[0];
    const std::string piece = Piece(vocab, next);
    text += piece;
    std::printf("step %d token %d \"%s\" top", step, next, Escaped(piece).c_str());
    for (int i = 0; i < top; ++i) std::printf(" %d:%.6g", order[i], static_cast<double>(logits[order[i]]));
    std::printf("\n");
    if (llama_vocab_is_eog(vocab, next)) break;
  }
  std::printf("text \"%s\"\n", Escaped(text).c_str());
  std::printf("prefill %d tokens %.2f tokens/s, decode %d tokens %.2f tokens/s\n", n_prompt, n_prompt / prefill_s,
              decoded, decoded > 0 ? decoded / decode_s : 0.0);
  llama_free(ctx);
  llama_model_free(model);
  llama_backend_free();
  return 0;
}
