"""vlak.models: models run on vlak's operators. MiniLM(path).encode(sentences) gives
all-MiniLM-L6-v2's sentence embeddings (see help(vlak.models.MiniLM)); Llama(path).generate(prompt, n)
greedy text from a Llama GGUF model such as SmolLM2-135M-Instruct (see help(vlak.models.Llama))."""
from ._vlak import models as _models

MiniLM = _models.MiniLM
Llama = _models.Llama

__all__ = ["MiniLM", "Llama"]
