# A synthetic arguments.py for tests/tools/test_megatron_args.py: the shapes
# of Megatron-LM's megatron/training/arguments.py, not its text.
import argparse

from megatron.training.argument_utils import ArgumentGroupFactory
from megatron.training.config import TrainConfig

DTYPES = ['fp32', 'bf16']


def add_megatron_arguments(parser):
    parser = _add_network_args(parser)
    parser = _add_training_args(parser)
    parser = _add_logging_args(parser)
    return parser


def _add_network_args(parser):
    group = parser.add_argument_group(title='network size')
    group.add_argument('--num-layers', type=int, default=None)
    group.add_argument('--swiglu', action='store_true')
    group.add_argument('--disable-bias-linear', action='store_false', dest='add_bias_linear')
    group.add_argument('--recompute-modules', nargs='*', type=str, default=None)
    group.add_argument('--cp-comm-type', nargs='+', type=str, default=['p2p'])
    group.add_argument('--ckpt-step', nargs='?', type=int)
    group.add_argument('--rampup-batch-size', nargs=3, default=None)
    group.add_argument('--exp-avg-dtype', default='fp32', choices=DTYPES)
    group.add_argument('--override-opt_param-scheduler', '--override-opt-param-scheduler',
                       action='store_true')
    group.add_argument('--ckpt-fully-parallel-load', action=argparse.BooleanOptionalAction)
    group.add_argument('positional')
    _add_nested(group)
    return parser


def _add_nested(group):
    group.add_argument('--nested-flag', action='store_true')


def _add_training_args(parser):
    exclude = ['excluded_field']
    factory = ArgumentGroupFactory(TrainConfig, exclude=exclude)
    factory.build_group(parser, "training")
    return parser


def _add_logging_args(parser):
    from megatron.training.config import LogConfig

    ArgumentGroupFactory(LogConfig).build_group(parser, "logging")
    group = parser.add_argument_group(title='logging')
    group.add_argument('--log-interval', type=int, default=100)
    return parser


def _add_unreachable_args(parser):
    parser.add_argument('--never-registered', action='store_true')
    return parser
