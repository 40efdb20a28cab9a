# torchtitan configuration (Python, since 2026-02-23; checked against @ b5bcd76c), written by trainplan 0.1.0
# Plan: llama-3-8b on 8 x h100-sxm (8 per node): TP 1 x PP 1 x CP 1 x DP 8, EP 1, sequence
#       parallel off, ZeRO 3, schedule 1f1b; sequence 8192 tokens, micro-batch 2, global batch
#       64 (4 micro-batches per step); bf16, recompute full
# Reproduce: trainplan estimate --model llama-3-8b --gpu h100-sxm --gpus 8 --tp 1 --pp 1 --cp 1
#            --ep 1 --no-sp --schedule 1f1b --zero 3 --recompute full --recompute-every 1
#            --seq-len 8192 --micro-batch 2 --global-batch 64 --precision bf16 --grad-dtype fp32
#            --optimizer adamw
# Predicted memory: 52.52 GiB of 79.65 GiB usable on the heaviest GPU (pipeline stage 0): fits,
#                   27.12 GiB headroom
# Predicted throughput: step 9.082 s, 57726 tokens/s (7215.8 tokens/s per GPU), 371.4 model
#                       TFLOP/s per GPU, MFU 37.5%, largest non-compute part: activation
#                       recompute
# Not expressible in torchtitan (1; the run differs from the plan here):
#   - rotary scaling: torchtitan's llama3 flavor 8B applies Llama 3.1's scaling (factor 8),
#     which this model does not have
#
# Run: save as trainplan_run.py on PYTHONPATH, then
#   NGPU=8 MODULE=trainplan_run CONFIG=trainplan_config ./run_train.sh
# training.steps is the recipe's: the plan has no token budget (pass --train-tokens to trainplan
# export).
# The dataset, tokenizer, learning rate and checkpoints are the recipe's; change them in the
# function.

from torchtitan.components.loss import CrossEntropyLoss
from torchtitan.config import CompileConfig, ParallelismConfig
from torchtitan.distributed.activation_checkpoint import FullAC
from torchtitan.models.common.config_utils import decoder_vocab_size
from torchtitan.models.llama3 import model_registry
from torchtitan.models.llama3.config_registry import llama3_8b
from torchtitan.trainer import Trainer


def trainplan_config() -> Trainer.Config:
    # llama-3-8b on 8 x h100-sxm (8 per node): TP 1 x PP 1 x CP 1 x DP 8, EP 1, sequence
    # parallel off, ZeRO 3, schedule 1f1b; sequence 8192 tokens, micro-batch 2, global batch 64
    # (4 micro-batches per step); bf16, recompute full
    config = llama3_8b()  # the recipe's data, tokenizer, optimizer and schedule
    config.model_spec = model_registry("8B")
    config.loss = CrossEntropyLoss.Config(
        global_vocab_size=decoder_vocab_size(config.model_spec)
    )
    config.training.max_context_length = 8192
    config.training.num_tokens_per_microbatch_per_dp_rank = 16384
    config.training.num_tokens_per_train_step = 524288
    config.training.mixed_precision_param = "bfloat16"
    config.training.mixed_precision_reduce = "float32"
    config.parallelism = ParallelismConfig(
        data_parallel_replicate_degree=1,
        data_parallel_shard_degree=8,
        tensor_parallel_degree=1,
        enable_sequence_parallel=True,
        pipeline_parallel_degree=1,
        context_parallel_degree=1,
        expert_parallel_degree=1,
    )
    config.activation_checkpoint = FullAC.Config()
    config.compile = CompileConfig(
        enable=True,
        components=["model"],
    )
    return config
