// The all-MiniLM-L6-v2 test set of tests/models/minilm/ (scripts/minilm-reference.py writes it):
// its sentences, Hugging Face's token ids, and the float64 and PyTorch embeddings.
#ifndef VLAK_TESTS_MODELS_MINILM_REFERENCE_H_
#define VLAK_TESTS_MODELS_MINILM_REFERENCE_H_

#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace vlak_test {

struct MiniLMReference {
  static constexpr size_t kDim = 384;
  std::vector<std::string> sentences;
  std::vector<std::vector<int32_t>> ids;  // per sentence, [CLS] ... [SEP]
  std::vector<double> f64;                // sentences x kDim: float64 NumPy forward pass
  std::vector<float> torch;               // sentences x kDim: PyTorch float32, padded batches of 16
  size_t max_length = 0;                  // the truncation the ids were made with

  // dir: the folder (VLAK_SOURCE_DIR "/tests/models/minilm"). False with *error on any problem.
  bool Load(const std::string& dir, std::string* error) {
    const auto read = [&](const std::string& name, std::string* out) {
      std::ifstream f(dir + "/" + name, std::ios::binary);
      if (!f) return *error = dir + "/" + name + ": cannot open", false;
      std::ostringstream s;
      s << f.rdbuf();
      *out = s.str();
      return true;
    };
    std::string text, f64_bytes, torch_bytes;
    if (!read("tokens.json", &text) || !read("embeddings_f64.bin", &f64_bytes) ||
        !read("embeddings_torch.bin", &torch_bytes)) {
      return false;
    }
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object() || !j.contains("sentences")) return *error = dir + "/tokens.json: not the expected JSON", false;
    max_length = j["max_length"].get<size_t>();
    for (const auto& c : j["sentences"]) {
      sentences.push_back(c["text"].get<std::string>());
      ids.push_back(c["ids"].get<std::vector<int32_t>>());
    }
    const size_t n = sentences.size();
    if (f64_bytes.size() != n * kDim * sizeof(double) || torch_bytes.size() != n * kDim * sizeof(float)) {
      return *error = dir + ": the embeddings files do not hold " + std::to_string(n) + " x 384 values", false;
    }
    f64.resize(n * kDim);
    torch.resize(n * kDim);
    std::memcpy(f64.data(), f64_bytes.data(), f64_bytes.size());  // little-endian, as the host
    std::memcpy(torch.data(), torch_bytes.data(), torch_bytes.size());
    return true;
  }
};

}  // namespace vlak_test

#endif  // VLAK_TESTS_MODELS_MINILM_REFERENCE_H_
