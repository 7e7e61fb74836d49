// vlak.models.Llama: a Llama-architecture GGUF model (SmolLM2-135M-Instruct) with greedy decoding
// on vlak's kernels (src/models/llama.h). Llama(path).generate("prompt", 64) gives the text.
#include <pybind11/stl.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "models/llama.h"
#include "models/model_dir.h"

namespace vlak::python {
namespace {

struct LlamaObject {
  vlak::models::Llama model;
  vlak::models::LlamaStats stats;
  std::mutex mu;
};

constexpr const char* kDocLlama = R"doc(Llama(path: str | None = None, mode: str = "exact")

A Llama-architecture decoder from a GGUF file (q8_0 / q4_0 / q4_1 matrices, f32 norms), run on
vlak's operators with greedy decoding. path None: SmolLM2-135M-Instruct.Q4_1.gguf where
scripts/models install smollm2 puts it (build/models, or $VLAK_MODELS_DIR). mode: the matmuls'
arithmetic, "exact" (the dequantized weights), "quantized" (ggml's int8 activations) or "auto"
(int8 activations below 16 rows, exact above: the faster of the two per call; docs/models.md).
Raises FileNotFoundError when the file is missing, ValueError for a file it cannot run.)doc";

constexpr const char* kDocGenerate = R"doc(generate(prompt: str, n: int = 64, chat: bool = False) -> str

The text of n greedy tokens after the prompt (special tokens such as <|im_start|> in the prompt are
parsed). chat: the prompt is a user message, wrapped in the model's chat template, and generation
stops at the first end token. The prompt runs as one batch, then one token at a time; stats()
has the timings. Runs on vlak.set_num_threads threads, the GIL released.)doc";

std::vector<int32_t> Run(LlamaObject& self, const std::vector<int32_t>& ids, size_t n, bool stop) {
  std::vector<int32_t> out;
  std::string err;
  bool ok;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(self.mu);
    ok = self.model.Generate(ids, n, &out, &err, &self.stats, stop);
  }
  if (!ok) throw py::value_error("vlak.models.Llama: " + err);
  return out;
}

}  // namespace

void BindLlama(py::module_& models) {
  py::class_<LlamaObject>(models, "Llama", kDocLlama)
      .def(py::init([](std::optional<std::string> path, const std::string& mode) {
             using Mode = vlak::models::Llama::MatmulMode;
             if (mode != "auto" && mode != "exact" && mode != "quantized") {
               throw py::value_error("vlak.models.Llama: mode must be \"auto\", \"exact\" or \"quantized\", not \"" + mode + "\"");
             }
             const std::string file = path ? *path : vlak::models::DefaultModelDir("SmolLM2-135M-Instruct.Q4_1.gguf");
             if (FILE* f = std::fopen(file.c_str(), "rb")) {
               std::fclose(f);
             } else {
               PyErr_SetString(PyExc_FileNotFoundError,
                               ("vlak.models.Llama: no model at " + file + ": run scripts/models install smollm2").c_str());
               throw py::error_already_set();
             }
             auto obj = std::make_unique<LlamaObject>();
             std::string err;
             bool ok;
             {
               py::gil_scoped_release release;
               ok = obj->model.Load(file, &err);
             }
             if (!ok) throw py::value_error("vlak.models.Llama: " + err);
             obj->model.set_matmul_mode(mode == "auto" ? Mode::kAuto : mode == "quantized" ? Mode::kQuantized : Mode::kExact);
             return obj;
           }),
           py::arg("path") = py::none(), py::arg("mode") = "exact")
      .def(
          "generate",
          [](LlamaObject& self, const std::string& prompt, size_t n, bool chat) {
            const std::string text = chat ? self.model.ChatPrompt(prompt) : prompt;
            const std::vector<int32_t> ids = self.model.tokenizer().Encode(text);
            if (ids.empty()) throw py::value_error("vlak.models.Llama.generate: the prompt gives no tokens");
            return self.model.tokenizer().Decode(Run(self, ids, n, chat));
          },
          py::arg("prompt"), py::arg("n") = 64, py::arg("chat") = false, kDocGenerate)
      .def(
          "generate_ids",
          [](LlamaObject& self, const std::vector<int32_t>& ids, size_t n) {
            if (ids.empty()) throw py::value_error("vlak.models.Llama.generate_ids: no prompt ids");
            return Run(self, ids, n, false);
          },
          py::arg("ids"), py::arg("n") = 64,
          "generate_ids(ids: list[int], n: int = 64) -> list[int]: n greedy token ids after the prompt's ids")
      .def(
          "tokenize", [](LlamaObject& self, const std::string& text) { return self.model.tokenizer().Encode(text); },
          py::arg("text"), "tokenize(text: str) -> list[int]: llama.cpp's ids (special tokens parsed)")
      .def(
          "decode",
          [](LlamaObject& self, const std::vector<int32_t>& ids) {
            return py::bytes(self.model.tokenizer().Decode(ids)).attr("decode")("utf-8", "replace");
          },
          py::arg("ids"), "decode(ids: list[int]) -> str")
      .def(
          "stats",
          [](LlamaObject& self) {
            std::lock_guard<std::mutex> lock(self.mu);
            py::dict d;
            d["prompt_tokens"] = self.stats.prompt_tokens;
            d["generated"] = self.stats.generated;
            d["prefill_s"] = self.stats.prefill_s;
            d["decode_s"] = self.stats.decode_s;
            return d;
          },
          "stats() -> dict: prompt_tokens, generated, prefill_s, decode_s of the last generate call")
      .def_property_readonly("vocab_size", [](LlamaObject& self) { return self.model.config().vocab; })
      .def_property_readonly("layers", [](LlamaObject& self) { return self.model.config().layers; });
}

}  // namespace vlak::python
