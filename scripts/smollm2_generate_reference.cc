// Greedy decoding with llama.cpp, printing the prompt's ids, then per generated step the chosen
// token and the five largest logits, as JSON lines: the reference of the SmolLM2 test
// (scripts/smollm2-generate-reference builds this against a llama.cpp build and runs it).
//   smollm2_generate_reference MODEL.gguf N_TOKENS THREADS < prompts
// prompts: one a line, with newline, tab and backslash escaped as \n, \t and \\ (the chat template
// already applied by the caller); one JSON object a line out.
// Each prompt is evaluated as one batch (prefill), then one token at a time, as vlak does.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "llama.h"

static void Quiet(enum ggml_log_level, const char*, void*) {}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s MODEL.gguf N_TOKENS THREADS < prompts\n", argv[0]);
    return 2;
  }
  const int n_gen = std::atoi(argv[2]);
  const int threads = std::atoi(argv[3]);
  llama_log_set(Quiet, nullptr);
  llama_backend_init();
  llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  llama_model* model = llama_model_load_from_file(argv[1], mp);
  if (!model) { std::fprintf(stderr, "cannot load %s\n", argv[1]); return 1; }
  const llama_vocab* vocab = llama_model_get_vocab(model);
  const int n_vocab = llama_vocab_n_tokens(vocab);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    // The line is the raw prompt text, with "\n" escaped as \n and "\\" as \\.
    std::string prompt;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) {
        ++i;
        prompt += line[i] == 'n' ? '\n' : line[i] == 't' ? '\t' : line[i];
      } else {
        prompt += line[i];
      }
    }
    std::vector<llama_token> ids(prompt.size() + 16);
    const int n = llama_tokenize(vocab, prompt.data(), static_cast<int32_t>(prompt.size()), ids.data(),
                                 static_cast<int32_t>(ids.size()), /*add_special=*/true, /*parse_special=*/true);
    if (n < 0) { std::fprintf(stderr, "tokenize failed\n"); return 1; }
    ids.resize(n);
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = static_cast<uint32_t>(n + n_gen + 8);
    cp.n_batch = cp.n_ctx;
    cp.n_threads = threads;
    cp.n_threads_batch = threads;
    cp.no_perf = true;
    llama_context* ctx = llama_init_from_model(model, cp);
    if (!ctx) { std::fprintf(stderr, "cannot make a context\n"); return 1; }
    std::printf("{\"prompt_ids\": [");
    for (int i = 0; i < n; ++i) std::printf("%s%d", i ? ", " : "", ids[i]);
    std::printf("], \"steps\": [");
    llama_batch batch = llama_batch_get_one(ids.data(), n);
    llama_token next = 0;
    for (int step = 0; step < n_gen; ++step) {
      if (llama_decode(ctx, batch) != 0) { std::fprintf(stderr, "decode failed\n"); return 1; }
      const float* logits = llama_get_logits_ith(ctx, -1);
      std::vector<int> order(n_vocab);
      for (int i = 0; i < n_vocab; ++i) order[i] = i;
      std::partial_sort(order.begin(), order.begin() + 5, order.end(), [&](int a, int b) {
        return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
      });
      next = order[0];
      std::printf("%s{\"token\": %d, \"top5\": [", step ? ", " : "", next);
      for (int j = 0; j < 5; ++j) std::printf("%s[%d, %.6f]", j ? ", " : "", order[j], logits[order[j]]);
      std::printf("]}");
      batch = llama_batch_get_one(&next, 1);
    }
    std::printf("]}\n");
    std::fflush(stdout);
    llama_free(ctx);
  }
  llama_model_free(model);
  return 0;
}
