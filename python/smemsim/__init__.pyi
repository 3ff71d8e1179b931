# Type stubs of the smemsim package (issue 47): the signatures of python/smemsim/__init__.py.
import os
from typing import Any, Callable, Mapping, Sequence, Union

import numpy as np
import numpy.typing as npt
import pandas as pd

from ._core import Arch as Arch, Error as Error, arch_keys as arch_keys, presets as presets

_ArchLike = Union[str, Arch]
_Path = Union[str, os.PathLike[str]]
_Layout = Union[Callable[[int, int], int], npt.ArrayLike]
_Launch = Union[Mapping[str, Any], _Path, None]

__all__: list[str]

class Note(UserWarning): ...

def arch(name: _ArchLike = ..., **overrides: Any) -> Arch: ...
def conflicts(addresses: npt.ArrayLike, arch: _ArchLike = ..., unit: str = ..., op: str = ...,
              per_lane: bool = ...) -> dict[str, np.ndarray]: ...
def layout_conflicts(layout: _Layout, threads: int = ..., elements: int = ...,
                     arch: _ArchLike = ..., element_bytes: int = ...,
                     op: str = ...) -> dict[str, np.ndarray]: ...
def hash_search(layout: _Layout, threads: int = ..., elements: int = ..., arch: _ArchLike = ...,
                element_bytes: int = ..., family: str = ..., heuristic: str = ...) -> dict[str, Any]: ...
def launch_toml(spec: Mapping[str, Any]) -> str: ...
def run(target: _Path, launch: _Launch = ..., buffers: Mapping[str, npt.ArrayLike] | None = ...,
        arch: _ArchLike | None = ..., **options: Any) -> dict[str, Any]: ...
def profile(target: _Path, launch: _Launch = ..., buffers: Mapping[str, npt.ArrayLike] | None = ...,
            arch: _ArchLike | None = ..., **options: Any) -> dict[str, Any]: ...
def sim(target: _Path, launch: _Launch = ..., buffers: Mapping[str, npt.ArrayLike] | None = ...,
        arch: _ArchLike | None = ..., **options: Any) -> dict[str, Any]: ...
def racecheck(target: _Path, launch: _Launch = ..., buffers: Mapping[str, npt.ArrayLike] | None = ...,
              arch: _ArchLike | None = ..., **options: Any) -> dict[str, Any]: ...

class _Study:
    @staticmethod
    def load(folder: _Path) -> pd.DataFrame: ...

study: _Study
