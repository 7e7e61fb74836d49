// vlak.set_parallel_runner: which threads run vlak's parallel work when called from Python.
//
// PyTorch's CPU operators run on GNU OpenMP (libgomp: Debian's python3-torch links the system
// libgomp.so.1, the PyPI wheels bundle one under a hashed name such as libgomp-a34b3233.so.1).
// A Python program that interleaves torch and vlak calls with vlak on its own pool has two sets of
// worker threads, each spinning for a while after its calls, competing for the same cores. The
// "openmp" runner runs vlak's tasks on the libgomp already in the process instead, through the
// C API's vlak_set_parallel_runner (vlak.h): the calling thread's libgomp team, the one torch's
// next region reuses (libgomp keeps one thread pool per thread that starts regions).
//
// libgomp is not linked: the one to use is whichever the process has loaded (a wheel's private
// copy included), found by file name with dl_iterate_phdr and opened with RTLD_NOLOAD, so this
// module never loads a second OpenMP runtime. GOMP_parallel is what GCC emits for
// `#pragma omp parallel` (libgomp manual, "The libgomp ABI"); the omp_* calls are OpenMP's API.
#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bindings.h"

namespace vlak::python {
namespace {

struct Gomp {
  std::string path;
  void (*parallel)(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) = nullptr;
  int (*thread_num)() = nullptr;
  int (*num_threads)() = nullptr;
};

// A loaded object whose file name starts with "libgomp" and exports what the runner calls; null
// when there is none. With two loaded, a wheel's bundled copy ("libgomp-<hash>.so.1", auditwheel's
// naming) comes first: it is the one a PyTorch wheel runs on, the system's may serve another
// library. Each one found is kept for the process's life (vlak keeps the runner's context
// pointer), and its handle is never closed, so it stays loaded.
const Gomp* FindLoadedGomp() {
  std::vector<std::string> paths;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        const char* name = info->dlpi_name;
        if (name == nullptr || *name == '\0') return 0;
        const char* slash = std::strrchr(name, '/');
        const char* base = slash ? slash + 1 : name;
        if (std::strncmp(base, "libgomp", 7) == 0) static_cast<std::vector<std::string>*>(data)->push_back(name);
        return 0;
      },
      &paths);
  std::vector<std::string> ordered;
  for (int pass = 0; pass < 2; ++pass) {
    for (const std::string& p : paths) {
      if ((p.find("/libgomp-") != std::string::npos) == (pass == 0)) ordered.push_back(p);
    }
  }
  static std::mutex m;
  static std::vector<std::unique_ptr<Gomp>> found;
  std::lock_guard<std::mutex> g(m);
  for (const std::string& p : ordered) {
    for (const auto& f : found) {
      if (f->path == p) return f.get();
    }
    void* h = dlopen(p.c_str(), RTLD_NOLOAD | RTLD_LAZY);
    if (h == nullptr) continue;
    auto gomp = std::make_unique<Gomp>();
    gomp->path = p;
    gomp->parallel = reinterpret_cast<decltype(gomp->parallel)>(dlsym(h, "GOMP_parallel"));
    gomp->thread_num = reinterpret_cast<decltype(gomp->thread_num)>(dlsym(h, "omp_get_thread_num"));
    gomp->num_threads = reinterpret_cast<decltype(gomp->num_threads)>(dlsym(h, "omp_get_num_threads"));
    if (gomp->parallel == nullptr || gomp->thread_num == nullptr || gomp->num_threads == nullptr) {
      dlclose(h);
      continue;
    }
    found.push_back(std::move(gomp));
    return found.back().get();
  }
  return nullptr;
}

struct Region {
  const Gomp* gomp;
  vlak_parallel_task task;
  void* task_ctx;
  size_t n;
};

// Each team member takes task i = its number, then steps by the team size: a team smaller than
// asked (OMP_THREAD_LIMIT, or a region nested in one of torch's, which gets one thread) still
// runs every i, as the runner contract requires.
void RegionBody(void* data) {
  const auto* r = static_cast<const Region*>(data);
  const size_t step = static_cast<size_t>(r->gomp->num_threads());
  for (size_t i = static_cast<size_t>(r->gomp->thread_num()); i < r->n; i += step) r->task(r->task_ctx, i);
}

void GompRunner(void* runner_ctx, vlak_parallel_task task, void* task_ctx, size_t n) {
  Region r{static_cast<const Gomp*>(runner_ctx), task, task_ctx, n};
  r.gomp->parallel(RegionBody, &r, static_cast<unsigned>(n), 0);
}

std::mutex g_kind_mutex;
std::string g_kind = "vlak";
const Gomp* g_gomp = nullptr;

void SetRunner(const std::string& kind) {
  if (kind != "auto" && kind != "openmp" && kind != "vlak") {
    throw py::value_error("vlak.set_parallel_runner: unknown kind '" + kind + "' (valid: 'auto', 'openmp', 'vlak')");
  }
  const Gomp* gomp = kind == "vlak" ? nullptr : FindLoadedGomp();
  if (kind == "openmp" && gomp == nullptr) {
    throw std::runtime_error(
        "vlak.set_parallel_runner: 'openmp' needs GNU OpenMP (a libgomp) loaded in this process, and none is: "
        "import torch (or another library built with GCC's OpenMP) first");
  }
  std::lock_guard<std::mutex> g(g_kind_mutex);
  Check("set_parallel_runner", gomp ? vlak_set_parallel_runner(GompRunner, const_cast<Gomp*>(gomp))
                                    : vlak_set_parallel_runner(nullptr, nullptr));
  g_kind = gomp ? "openmp" : "vlak";
  g_gomp = gomp;
}

}  // namespace

void BindRunner(py::module_& m) {
  m.def(
      "set_parallel_runner", [](const std::string& kind) { SetRunner(kind); }, py::arg("kind") = "auto",
      R"doc(set_parallel_runner(kind: str = "auto") -> None

Which threads run vlak's parallel work (the C API's vlak_set_parallel_runner):
  "openmp": the GNU OpenMP runtime (libgomp) already loaded in this process, the one PyTorch's
            CPU operators run on (a wheel's bundled libgomp-<hash>.so.1 included): vlak and torch
            then share one set of worker threads instead of competing with two. RuntimeError when
            no libgomp is loaded.
  "vlak":   vlak's own thread pool.
  "auto":   "openmp" when a libgomp is loaded now, else "vlak". It is what `import vlak` sets, so
            importing torch after vlak leaves vlak on its pool: call set_parallel_runner("auto")
            again after `import torch` (or import torch first).
The thread count is vlak's either way (set_num_threads); results are the same bits with every
runner. On libgomp, as for torch's own operators, a call returns only when every thread of its
team has run: when other processes keep the cores busy, that can be a scheduler tick (softmax
1823x781 at 2 threads on a loaded 2-core machine: 8 ms, torch.softmax too, against 1.4 ms on vlak's
pool, whose caller takes the work of threads that have not started). Process-wide; set it while
no vlak call runs. ValueError for another kind.)doc");
  m.def(
      "get_parallel_runner",
      [] {
        std::lock_guard<std::mutex> g(g_kind_mutex);
        return g_kind;
      },
      R"doc(get_parallel_runner() -> str

The runner in use: "openmp" or "vlak" ("auto" resolves to one of them when it is set).)doc");
  m.def(
      "_parallel_runner_library",
      []() -> py::object {
        std::lock_guard<std::mutex> g(g_kind_mutex);
        if (g_gomp == nullptr) return py::none();
        return py::str(g_gomp->path);
      },
      "The path of the libgomp the \"openmp\" runner uses, None for vlak's pool.");
  SetRunner("auto");
}

}  // namespace vlak::python
