// Where the models' files are: the folders scripts/models installs and links as
// build/models/<name> (e.g. build/models/all-MiniLM-L6-v2), or $VLAK_MODELS_DIR/<name>.
#ifndef VLAK_MODELS_MODEL_DIR_H_
#define VLAK_MODELS_MODEL_DIR_H_

#include <string>

namespace vlak::models {

// $VLAK_MODELS_DIR/<name> if that variable is set, else the source tree's build/models/<name>.
std::string DefaultModelDir(const std::string& name);

// True if <dir>/model.safetensors exists; otherwise false and *error says what to run
// (scripts/models install <key>, which scripts/bootstrap runs).
bool ModelDirPresent(const std::string& dir, const std::string& key, std::string* error);

}  // namespace vlak::models

#endif  // VLAK_MODELS_MODEL_DIR_H_
