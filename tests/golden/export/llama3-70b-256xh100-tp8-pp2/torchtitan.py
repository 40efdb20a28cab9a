# torchtitan configuration (Python, since 2026-02-23; checked against @ b5bcd76c), written by trainplan 0.1.0
# Plan: llama-3-70b on 256 x h100-sxm (8 per node): TP 8 x PP 2 x CP 1 x DP 16, EP 1, sequence
#       parallel on, ZeRO 1, schedule 1f1b; sequence 8192 tokens, micro-batch 1, global batch
#       256 (16 micro-batches per step); bf16, recompute selective
# Reproduce: trainplan estimate --model llama-3-70b --gpu h100-sxm --gpus 256 --tp 8 --pp 2
#            --cp 1 --ep 1 --sp --schedule 1f1b --zero 1 --recompute selective --seq-len 8192
#            --micro-batch 1 --global-batch 256 --precision bf16 --grad-dtype bf16
#            --optimizer adamw
# Predicted memory: 42.33 GiB of 79.65 GiB usable on the heaviest GPU (pipeline stage 0): fits,
#                   37.32 GiB headroom
# Predicted throughput: step 9.955 s, 210663 tokens/s (822.9 tokens/s per GPU), 369.7 model
#                       TFLOP/s per GPU, MFU 37.4%, largest non-compute part: exposed
#                       tensor-parallel communication
# Not expressible in torchtitan (5; the run differs from the plan here):
#   - rotary scaling: torchtitan's llama3 flavor 70B applies Llama 3.1's scaling (factor 8),
#     which this model does not have
#   - bf16 gradients: torchtitan reduces and keeps gradients in float32
#     (mixed_precision_reduce); estimate with --grad-dtype fp32 to match it
#   - ZeRO-1 (sharded optimizer only): torchtitan shards with FSDP, which also shards gradients
#     and weights (written as data_parallel_shard_degree)
#   - selective recompute: torchtitan's per-op selective checkpointing saves matmul outputs and
#     recomputes the rest, not only the attention core
#   - the loss at 12 B a logit: torchtitan's cross-entropy holds 16 (loss parallel, fp32
#     log-probabilities), or 4 compiled, so the run needs more memory than the plan (plan with
#     --ce-bytes-per-logit-tp 16, or --framework torchtitan)
#
# Run: save as trainplan_run.py on PYTHONPATH, then
#   NGPU=8 MODULE=trainplan_run CONFIG=trainplan_config ./run_train.sh
#   on each of 32 nodes (torchrun --nnodes 32)
# training.steps is the recipe's: the plan has no token budget (pass --train-tokens to trainplan
# export).
# The dataset, tokenizer, learning rate and checkpoints are the recipe's; change them in the
# function.

from torchtitan.components.loss import CrossEntropyLoss
from torchtitan.config import CompileConfig, ParallelismConfig
from torchtitan.distributed.activation_checkpoint import SelectiveAC
from torchtitan.models.common.config_utils import decoder_vocab_size
from torchtitan.models.llama3 import model_registry
from torchtitan.models.llama3.config_registry import llama3_70b
from torchtitan.trainer import Trainer


def trainplan_config() -> Trainer.Config:
    # llama-3-70b on 256 x h100-sxm (8 per node): TP 8 x PP 2 x CP 1 x DP 16, EP 1, sequence
    # parallel on, ZeRO 1, schedule 1f1b; sequence 8192 tokens, micro-batch 1, global batch 256
    # (16 micro-batches per step); bf16, recompute selective
    config = llama3_70b()  # the recipe's data, tokenizer, optimizer and schedule
    config.model_spec = model_registry("70B")
    config.loss = CrossEntropyLoss.Config(
        global_vocab_size=decoder_vocab_size(config.model_spec)
    )
    config.training.max_context_length = 8192
    config.training.num_tokens_per_microbatch_per_dp_rank = 8192
    config.training.num_tokens_per_train_step = 2097152
    config.training.mixed_precision_param = "bfloat16"
    config.training.mixed_precision_reduce = "float32"
    config.parallelism = ParallelismConfig(
        data_parallel_replicate_degree=1,
        data_parallel_shard_degree=16,
        tensor_parallel_degree=8,
        enable_sequence_parallel=True,
        pipeline_parallel_degree=2,
        pipeline_parallel_schedule="1F1B",
        num_pp_microbatches=16,
        module_fqns_per_model_part=[
            ["tok_embeddings", "layers.0", "layers.1", "layers.2", "layers.3", "layers.4", "layers.5", "layers.6", "layers.7", "layers.8", "layers.9", "layers.10", "layers.11", "layers.12", "layers.13", "layers.14", "layers.15", "layers.16", "layers.17", "layers.18", "layers.19", "layers.20", "layers.21", "layers.22", "layers.23", "layers.24", "layers.25", "layers.26", "layers.27", "layers.28", "layers.29", "layers.30", "layers.31", "layers.32", "layers.33", "layers.34", "layers.35", "layers.36", "layers.37", "layers.38", "layers.39"],
            ["layers.40", "layers.41", "layers.42", "layers.43", "layers.44", "layers.45", "layers.46", "layers.47", "layers.48", "layers.49", "layers.50", "layers.51", "layers.52", "layers.53", "layers.54", "layers.55", "layers.56", "layers.57", "layers.58", "layers.59", "layers.60", "layers.61", "layers.62", "layers.63", "layers.64", "layers.65", "layers.66", "layers.67", "layers.68", "layers.69", "layers.70", "layers.71", "layers.72", "layers.73", "layers.74", "layers.75", "layers.76", "layers.77", "layers.78", "layers.79", "norm", "lm_head"],
        ],
        context_parallel_degree=1,
        expert_parallel_degree=1,
    )
    config.activation_checkpoint = SelectiveAC.Config()
    config.compile = CompileConfig(
        enable=True,
        components=["model"],
    )
    return config
