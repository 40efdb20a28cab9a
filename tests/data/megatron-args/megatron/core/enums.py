import enum


class Backend(enum.Enum):
    flash = 1
    fused = 2
    auto = 3
