# Type hints for the vlak Python module (the functions are in the compiled vlak._vlak).
from typing import Literal, Optional, Tuple, TypedDict, TypeVar, Union, overload

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
I8 = npt.NDArray[np.int8]
I16 = npt.NDArray[np.int16]
# int8 or uint8: the result has the input's dtype.
Q8 = TypeVar("Q8", npt.NDArray[np.int8], npt.NDArray[np.uint8])

__version__: str

class Info(TypedDict):
    version: str
    target: str
    targets_compiled: list[str]
    targets_supported: list[str]
    lanes: int
    lanes_by_lmul: dict[int, int]
    vlen: Optional[int]
    num_threads: int
    target_error: Optional[str]

def info() -> Info: ...
def set_target(target: Optional[Literal["scalar", "avx2", "avx512", "rvv"]]) -> None: ...
def get_target() -> str: ...
def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...
def set_parallel_runner(kind: Literal["auto", "openmp", "vlak"] = "auto") -> None: ...
def get_parallel_runner() -> Literal["openmp", "vlak"]: ...
def softmax(
    x: F32,
    axis: int = -1,
    log: bool = False,
    safe: bool = False,
    exp: Literal["accurate", "fast", "precise"] = "accurate",
    out: Optional[F32] = None,
) -> F32: ...
def log_softmax(
    x: F32,
    axis: int = -1,
    safe: bool = False,
    exp: Literal["accurate", "fast", "precise"] = "accurate",
    out: Optional[F32] = None,
) -> F32: ...
def exp(
    x: F32,
    variant: Literal["schraudolph", "bittrick_p3", "bittrick_p5", "cephes", "accurate", "precise"] = "accurate",
    out: Optional[F32] = None,
) -> F32: ...
ActivationOp = Literal["sigmoid", "tanh", "gelu", "gelu_tanh", "silu", "softplus", 0, 1, 2, 3, 4, 5]
def activation(
    x: F32, op: ActivationOp, out: Optional[F32] = None, accuracy: Literal["accurate", "fast"] = "accurate"
) -> F32: ...
def glu(
    gate: F32, up: F32, op: ActivationOp, out: Optional[F32] = None, accuracy: Literal["accurate", "fast"] = "accurate"
) -> F32: ...
@overload
def layernorm(
    x: F32,
    gamma: Optional[F32] = None,
    beta: Optional[F32] = None,
    eps: float = 1e-5,
    out: Optional[F32] = None,
    return_stats: Literal[False] = False,
) -> F32: ...
@overload
def layernorm(
    x: F32,
    gamma: Optional[F32] = None,
    beta: Optional[F32] = None,
    eps: float = 1e-5,
    out: Optional[F32] = None,
    *,
    return_stats: Literal[True],
) -> Tuple[F32, F32, F32]: ...
def layernorm_backward(
    dy: F32, x: F32, mean: F32, rstd: F32, gamma: Optional[F32] = None, out: Optional[F32] = None
) -> Tuple[F32, F32, F32]: ...
def rmsnorm(x: F32, gamma: Optional[F32] = None, eps: float = 1e-6, out: Optional[F32] = None) -> F32: ...
def add_layernorm(
    x: F32,
    r: F32,
    gamma: Optional[F32] = None,
    beta: Optional[F32] = None,
    eps: float = 1e-5,
    out: Optional[F32] = None,
    return_sum: bool = False,
) -> Union[F32, Tuple[F32, F32]]: ...
def add_rmsnorm(
    x: F32,
    r: F32,
    gamma: Optional[F32] = None,
    eps: float = 1e-6,
    out: Optional[F32] = None,
    return_sum: bool = False,
) -> Union[F32, Tuple[F32, F32]]: ...
def rope(x: F32, cos: F32, sin: F32, interleaved: bool = False, out: Optional[F32] = None) -> F32: ...
def rope_tables(positions: int, head_dim: int, base: float = 10000.0) -> Tuple[F32, F32]: ...
class PackedB:
    k: int
    n: int
    def matmul(self, a: F32, out: Optional[F32] = None, accumulate: bool = False, bias: Optional[F32] = None,
               activation: Optional[Union[str, int]] = None, accuracy: str = "accurate") -> F32: ...

def pack_b(b: F32, trans_b: bool = False) -> PackedB: ...
def matmul(a: F32, b: F32, trans_b: bool = False, out: Optional[F32] = None, accumulate: bool = False,
           bias: Optional[F32] = None, activation: Optional[Union[str, int]] = None, accuracy: str = "accurate") -> F32: ...
def attention(
    q: F32,
    k: F32,
    v: F32,
    causal: Union[bool, Literal["bottom_right", "top_left"]] = False,
    window: int = 0,
    bias: Optional[F32] = None,
    scale: Optional[float] = None,
    return_lse: bool = False,
    kv_lens: Optional[npt.ArrayLike] = None,
) -> Union[F32, Tuple[F32, F32]]: ...
def resize_bilinear(x: Q8, out_h: int, out_w: int, half_pixel: bool = False, out: Optional[Q8] = None) -> Q8: ...
def warp(x: I8, offsets: I16, out: Optional[I8] = None) -> I8: ...
def correlation(
    a: I8, b: I8, displacements: int, shift: int, wrap16: bool = False, out: Optional[I8] = None
) -> I8: ...
def softmax_i8(x: Q8, input_scale: float, lut: bool = False, out: Optional[Q8] = None) -> Q8: ...
def qtype_row_bytes(qtype: Literal["q8_0", "q4_0", "q4_1"], k: int) -> int: ...
def quantize(x: F32, qtype: Literal["q8_0", "q4_0", "q4_1"]) -> npt.NDArray[np.uint8]: ...
def dequantize(q: npt.NDArray[np.uint8], qtype: Literal["q8_0", "q4_0", "q4_1"], k: int) -> F32: ...
def matmul_q(
    a: F32,
    w: npt.NDArray[np.uint8],
    qtype: Literal["q8_0", "q4_0", "q4_1"],
    quantize_a: bool = False,
    bias: Optional[F32] = None,
    activation: Optional[Literal["sigmoid", "tanh", "gelu", "gelu_tanh", "silu", "softplus"]] = None,
) -> F32: ...

class PackedQ:
    n: int
    k: int
    qtype: str
    def matmul(
        self,
        a: F32,
        quantize_a: bool = False,
        bias: Optional[F32] = None,
        activation: Optional[Literal["sigmoid", "tanh", "gelu", "gelu_tanh", "silu", "softplus"]] = None,
    ) -> F32: ...

def pack_q(w: npt.NDArray[np.uint8], qtype: Literal["q8_0", "q4_0", "q4_1"], k: int) -> PackedQ: ...
