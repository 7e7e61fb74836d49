// Kernel signatures declared once (internal), as XNNPACK's one-declaration kernel headers.
//
// Each kernel family names its per-target functions in one X-macro list, in a header that both
// the kernel source (compiled once per target, vlak_target_objects) and the dispatching source
// include:
//
//   #define VLAK_SOFTMAX_KERNELS(X)                                                        \
//     X(kSoftmaxRow, vlak_status, SoftmaxRowF32, (const float* x, float* y, size_t n,      \
//                                                 unsigned flags, int algo))
//
// An entry is X(table, return type, name, (parameters)). The dispatching source builds its tables
// from the list (VLAK_PER_TARGET_TABLES, dispatch.h); the kernel source ends its
// `namespace vlak::VLAK_NS` with VLAK_KERNELS_DEFINED(list), which declares every entry there and
// checks that the function of that name has exactly the listed type. A definition whose return
// type differs is a conflicting redeclaration; one whose parameters differ is, in C++, a second
// overload, which the check's `&name` cannot resolve: both fail to compile
// (tests/compile_fail/kernel_signature.cc). Declarations and unevaluated checks only: no code.
#pragma once

#include <type_traits>

// `ret name args;` in the current namespace: for a header that declares a list's kernels in
// `namespace vlak::VLAK_NS` for other per-target code (tests, a sibling kernel source).
#define VLAK_DECLARE_KERNEL(table_name, ret, name, args) ret name args;

// The declaration, and the check that `name` in this namespace is that one function: no overload
// beside it (a definition with other parameters) and no other return type.
#define VLAK_CHECK_KERNEL(table_name, ret, name, args)                                              \
  ret name args;                                                                                    \
  static_assert(std::is_same_v<decltype(&name), ret(*) args>,                                       \
                #name ": the definition differs from the kernel list's declaration");

// At the end of a kernel source's `namespace vlak::VLAK_NS { ... }`, after its definitions:
// declares every kernel of `list` in this target's namespace and checks this source's definitions
// against the list. Entries that another source defines are only declared (and checked against
// their own declaration, which always passes).
#define VLAK_KERNELS_DEFINED(list) list(VLAK_CHECK_KERNEL)
