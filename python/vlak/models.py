"""vlak.models: models run on vlak's operators. MiniLM(path).encode(sentences) gives
all-MiniLM-L6-v2's sentence embeddings (see help(vlak.models.MiniLM))."""
from ._vlak import models as _models

MiniLM = _models.MiniLM

__all__ = ["MiniLM"]
