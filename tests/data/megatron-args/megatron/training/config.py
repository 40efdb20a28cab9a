# Synthetic dataclasses read by ArgumentGroupFactory (see arguments.py).
from dataclasses import dataclass, field
from typing import Literal, Optional

from megatron.core.enums import Backend


@dataclass
class BaseConfig:
    seed: int = 1234
    """The base class's fields come first."""

    use_cpu_init: bool = False


@dataclass
class TrainConfig(BaseConfig):
    micro_batch_size: Optional[int] = None
    bias_fusion: bool = True
    """Default True: spelled --no-bias-fusion and --disable-bias-fusion."""

    maybe_flag: Optional[bool] = None
    layer_sizes: list[int] | None = None
    schedule: Literal["cosine", "linear"] = "cosine"
    backend: Backend = Backend.auto
    excluded_field: int = 0
    derived: int = field(default=0, init=False)
    save_interval: int | None = field(
        default=None, metadata={"argparse_meta": {"arg_names": ["--save-interval", "--persistent-save-interval"]}}
    )
    fully_parallel_save: bool = field(
        default=True,
        metadata={"argparse_meta": {"arg_names": ["--no-ckpt-fully-parallel-save"], "dest": "ckpt_fully_parallel_save"}},
    )
    rampup: list[int] | None = field(default=None, metadata={"argparse_meta": {"nargs": 3}})


@dataclass
class LogConfig:
    log_params_norm: bool = False
