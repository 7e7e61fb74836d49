# Writes OUT, a C++ file holding every DIR/*.s NPU program as a string (ProgramText in npu.h).
# Run at build time: cmake -DDIR=... -DOUT=... -P embed_programs.cmake
file(GLOB programs ${DIR}/*.s)
list(SORT programs)
set(body "")
foreach(f IN LISTS programs)
  get_filename_component(name ${f} NAME_WE)
  file(READ ${f} text)
  string(APPEND body "      {\"${name}\", R\"vlaknpu(${text})vlaknpu\"},\n")
endforeach()
file(WRITE ${OUT} "// Generated from src/npu/programs/*.s by src/npu/embed_programs.cmake: do not edit.
#include <map>

#include \"npu/npu.h\"

namespace vlak::npu {
namespace {
const std::map<std::string, std::string>& Programs() {
  static const std::map<std::string, std::string> programs = {
${body}  };
  return programs;
}
}  // namespace

const std::string& ProgramText(const std::string& name) {
  static const std::string empty;
  const auto it = Programs().find(name);
  return it == Programs().end() ? empty : it->second;
}

std::vector<std::string> ProgramNames() {
  std::vector<std::string> names;
  for (const auto& [name, text] : Programs()) names.push_back(name);
  return names;
}

}  // namespace vlak::npu
")
