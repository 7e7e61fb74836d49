# Writes OUT, a C++ file holding every DIR/*.txt suite as a string (the built-in suites of
# `vlak bench`). Run at build time: cmake -DDIR=... -DOUT=... -P embed_suites.cmake
file(GLOB suites ${DIR}/*.txt)
list(SORT suites)
set(body "")
foreach(f IN LISTS suites)
  get_filename_component(name ${f} NAME_WE)
  file(READ ${f} text)
  # A raw string literal cannot hold its own delimiter; suites never contain it.
  string(APPEND body "      {\"${name}\", R\"vlaksuite(${text})vlaksuite\"},\n")
endforeach()
file(WRITE ${OUT} "// Generated from bench/suites/*.txt by tools/vlak/lab/embed_suites.cmake: do not edit.
#include \"lab/suite.h\"

namespace vlak::lab {

const std::vector<std::pair<std::string, std::string>>& BuiltinSuites() {
  static const std::vector<std::pair<std::string, std::string>> suites = {
${body}  };
  return suites;
}

}  // namespace vlak::lab
")
