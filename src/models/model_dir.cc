#include "models/model_dir.h"

#include <sys/stat.h>

#include <cstdlib>

namespace vlak::models {

std::string DefaultModelDir(const std::string& name) {
  const char* env = std::getenv("VLAK_MODELS_DIR");
  const std::string root = env && *env ? env : VLAK_MODELS_DIR;
  return root + "/" + name;
}

bool ModelDirPresent(const std::string& dir, const std::string& key, std::string* error) {
  struct stat st {};
  const std::string file = dir + "/model.safetensors";
  if (stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return true;
  if (error) {
    *error = "no model at " + dir + " (" + file + " is missing): run scripts/models install " + key +
             " (scripts/bootstrap does), or name the folder with --model / $VLAK_MODELS_DIR";
  }
  return false;
}

}  // namespace vlak::models
