/* SPDX-License-Identifier: MIT */
/*
 * import.c: a Megatron-LM argument list or a DeepSpeed ds_config.json as
 * trainplan flags (import.h explains why flags, not a tp_config).
 *
 * Megatron-LM. The text is split into words the way a POSIX shell would
 * (quotes, backslash continuations, `#` comments); words holding an
 * unexpanded `$VAR` are remembered and rejected only where the value
 * matters. An optional launcher before the script (`torchrun ... x.py`)
 * gives the GPU count. Each `--flag` is then looked up in four tables built
 * from megatron/training/arguments.py @ 000c4ac2 (data/megatron_args.txt):
 * mapped, rejected (changes memory or time in a way trainplan does not
 * model), approximated and ignored. As in argparse the last occurrence of a
 * flag wins. Defaults are Megatron's: LayerNorm, GELU, learned absolute
 * positions, tied embeddings, biases on, dropout 0.1, ffn 4h (SwiGLU:
 * int(8h/3 / 64) * 64), vocabulary padded to a multiple of 128 x TP, fp32
 * gradient accumulation under --bf16.
 *
 * DeepSpeed. The JSON is walked key by key against the ds_config schema
 * subset below; "auto" (the Hugging Face integration's placeholder) counts
 * as not given. The batch identity train_batch_size = micro x accumulation
 * x DP needs DP, which only the full configuration knows, so it is checked
 * in tp_io_import_apply().
 *
 * Invariants: every name in the Megatron tables is in data/megatron_args.txt
 * (tests/unit/test_export.c); an import never allocates memory that
 * outlives the call.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "io.h"
#include "io_internal.h"

#define MAX_LAYERS 100000
#define MAX_DIM 1048576
#define MAX_FFN 16777216
#define MAX_VOCAB 16777216
#define MAX_EXPERTS 65536
#define MAX_GPUS 1048576
#define MAX_SEQ 134217728
#define MAX_BATCH 1099511627776
#define MAX_FILE_BYTES (16u << 20)

/* ------------------------------------------------------------------ */
/* Output helpers                                                        */
/* ------------------------------------------------------------------ */

const char *tp_io_import_arg(const tp_import *im, int i)
{
    if (!im || i < 0 || i >= im->argc)
        return NULL;
    return im->argbuf + im->argoff[i];
}

/* Append one argv word. Returns false when the fixed buffers are full
 * (cannot happen with the flags written here; checked anyway). */
static bool push_word(tp_import *im, const char *w)
{
    size_t n = strlen(w) + 1;
    if (im->argc >= TP_IMPORT_MAX_ARGS || im->argbuf_used + n > sizeof im->argbuf)
        return false;
    memcpy(im->argbuf + im->argbuf_used, w, n);
    im->argoff[im->argc++] = im->argbuf_used;
    im->argbuf_used += n;
    return true;
}

static bool push_flag(tp_import *im, const char *flag)
{
    return push_word(im, flag);
}

static bool push_i64(tp_import *im, const char *flag, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return push_word(im, flag) && push_word(im, buf);
}

static bool push_str(tp_import *im, const char *flag, const char *v)
{
    return push_word(im, flag) && push_word(im, v);
}

/* Add name to a comma-separated list once; "..." when the list is full. */
static void list_add(char *list, size_t cap, const char *name)
{
    size_t n = strlen(name), len = strlen(list);
    const char *p = list;
    while ((p = strstr(p, name)) != NULL) {
        bool start = p == list || (p >= list + 2 && p[-2] == ',' && p[-1] == ' ');
        bool end = p[n] == '\0' || p[n] == ',';
        if (start && end)
            return;
        p += n;
    }
    if (len >= 3 && strcmp(list + len - 3, "...") == 0)
        return;
    const char *sep = len ? ", " : "";
    if (len + strlen(sep) + n + 5 >= cap) {
        if (len + 6 < cap)
            snprintf(list + len, cap - len, "%s...", sep);
        return;
    }
    snprintf(list + len, cap - len, "%s%s", sep, name);
}

/* Add a sentence to im->assumed ("; "-separated). */
static void assume(tp_import *im, const char *text)
{
    size_t len = strlen(im->assumed);
    if (len + strlen(text) + 3 >= sizeof im->assumed)
        return;
    snprintf(im->assumed + len, sizeof im->assumed - len, "%s%s", len ? "; " : "", text);
}

static tp_status full(tp_error *err)
{
    return tp_error_set(err, TP_ERR_INTERNAL, "", "import: too many equivalent flags");
}

/* The model name: the file's base name without its extension. */
static void origin_name(const char *origin, const char *fallback, char *out, size_t n)
{
    const char *base = origin ? strrchr(origin, '/') : NULL;
    base = base ? base + 1 : origin;
    if (!base || !*base || strcmp(base, "-") == 0) {
        snprintf(out, n, "%s", fallback);
        return;
    }
    size_t len = strcspn(base, ".");
    if (len == 0)
        len = strlen(base);
    snprintf(out, n, "%.*s", (int)(len < n - 1 ? len : n - 1), base);
}

/* ------------------------------------------------------------------ */
/* Megatron-LM: words                                                   */
/* ------------------------------------------------------------------ */

typedef struct word {
    char *s;       /* unquoted text */
    int line, col; /* 1-based position of its first character */
    bool var;      /* holds an unexpanded $VAR or `cmd` */
} word;

typedef struct words {
    word *w;
    size_t n, cap;
    char *store; /* all word texts, NUL-separated */
} words;

static void words_free(words *ws)
{
    free(ws->w);
    free(ws->store);
    memset(ws, 0, sizeof *ws);
}

/* A quote left open: the error points at the quote that opened it. */
static tp_status unterminated(tp_error *err, const char *which, int line, int col)
{
    tp_error_set(err, TP_ERR_PARSE, "", "unterminated %s quote", which);
    if (err) {
        err->line = line;
        err->column = col;
    }
    return TP_ERR_PARSE;
}

/* Split text into shell words. */
static tp_status split_words(const char *text, words *ws, tp_error *err)
{
    size_t len = strlen(text);
    ws->store = malloc(len + 1);
    if (!ws->store)
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading the arguments");
    char *o = ws->store;
    int line = 1, col = 1;
    size_t i = 0;
#define ADV()                                                                                    \
    do {                                                                                         \
        if (text[i] == '\n') {                                                                   \
            line++;                                                                              \
            col = 1;                                                                             \
        } else {                                                                                 \
            col++;                                                                               \
        }                                                                                        \
        i++;                                                                                     \
    } while (0)
    while (i < len) {
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            ADV();
            continue;
        }
        if (c == '\\' && (text[i + 1] == '\n' || (text[i + 1] == '\r' && text[i + 2] == '\n'))) {
            ADV();
            continue;
        }
        if (c == '#') {
            while (i < len && text[i] != '\n')
                ADV();
            continue;
        }
        if (ws->n == ws->cap) {
            size_t cap = ws->cap ? ws->cap * 2 : 64;
            word *nw = realloc(ws->w, cap * sizeof *nw);
            if (!nw)
                return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading the arguments");
            ws->w = nw;
            ws->cap = cap;
        }
        word *w = &ws->w[ws->n++];
        w->s = o;
        w->line = line;
        w->col = col;
        w->var = false;
        while (i < len) {
            c = text[i];
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
                break;
            if (c == '\\') {
                ADV();
                if (i < len && text[i] == '\n') {
                    ADV();
                    continue;
                }
                if (i < len) {
                    *o++ = text[i];
                    ADV();
                }
            } else if (c == '\'') {
                int ql = line, qc = col;
                ADV();
                while (i < len && text[i] != '\'') {
                    *o++ = text[i];
                    ADV();
                }
                if (i >= len)
                    return unterminated(err, "single", ql, qc);
                ADV();
            } else if (c == '"') {
                int ql = line, qc = col;
                ADV();
                while (i < len && text[i] != '"') {
                    if (text[i] == '\\' && i + 1 < len && strchr("\"\\$`\n", text[i + 1])) {
                        ADV();
                        if (text[i] == '\n') {
                            ADV();
                            continue;
                        }
                    } else if (text[i] == '$' || text[i] == '`') {
                        w->var = true;
                    }
                    *o++ = text[i];
                    ADV();
                }
                if (i >= len)
                    return unterminated(err, "double", ql, qc);
                ADV();
            } else {
                if (c == '$' || c == '`')
                    w->var = true;
                *o++ = c;
                ADV();
            }
        }
        *o++ = '\0';
    }
#undef ADV
    return TP_OK;
}

static tp_status at(tp_error *err, const word *w, tp_status code)
{
    if (err && w) {
        err->line = w->line;
        err->column = w->col;
    }
    return code;
}

/* ------------------------------------------------------------------ */
/* Megatron-LM: the argument tables                                     */
/* ------------------------------------------------------------------ */

enum mid {
    M_NUM_LAYERS, M_HIDDEN, M_FFN, M_HEADS, M_GQA, M_QUERY_GROUPS, M_KV_CHANNELS, M_SEQ,
    M_MAX_POS, M_POS_TYPE, M_ROTARY, M_NORM, M_SWIGLU, M_UNTIE, M_NO_BIAS, M_QKV_BIAS, M_VOCAB,
    M_PADDED_VOCAB, M_MAKE_DIV, M_EXPERTS, M_TOPK, M_MOE_FFN, M_SHARED, M_MOE_FREQ, M_ATT_DROP,
    M_HID_DROP, M_ATT_BACKEND, M_USE_FLASH, M_TP, M_PP, M_CP, M_EP, M_ETP, M_SP, M_VPP_LAYERS,
    M_VPP_STAGES, M_FIRST, M_LAST, M_DISTOPT, M_MFSDP, M_DP_SHARD, M_FSDP2, M_FSDP2_NORESHARD,
    M_DISTOPT_INST, M_MB, M_GB, M_RECOMP_ACT, M_RECOMP_GRAN, M_RECOMP_METHOD, M_RECOMP_NUM,
    M_RECOMP_MODULES, M_BF16, M_FP16, M_FP8, M_GRAD_BF16, M_ACC_FP32, M_OPTIMIZER, M_SGD_MOM,
    M_PREC_AWARE, M_EXP_AVG, M_EXP_AVG_SQ, M_MAIN_GRADS, M_MAIN_PARAMS, M_CPU_OFFLOAD, M_MTP,
    M_HYBRID,
    M_COUNT
};

typedef struct marg_map {
    const char *name;
    enum mid id;
} marg_map;

typedef struct marg_reject {
    const char *name;
    const char *why; /* completes "\"NAME\" WHY, which changes ..." */
} marg_reject;

/* Mapped: each becomes trainplan settings (see interpret()). */
static const marg_map map_args[] = {
    {"--accumulate-allreduce-grads-in-fp32", M_ACC_FP32},
    {"--add-qkv-bias", M_QKV_BIAS},
    {"--attention-backend", M_ATT_BACKEND},
    {"--attention-dropout", M_ATT_DROP},
    {"--bf16", M_BF16},
    {"--context-parallel-size", M_CP},
    {"--cpu-offloading-num-layers", M_CPU_OFFLOAD},
    {"--data-parallel-sharding-strategy", M_DP_SHARD},
    {"--decoder-first-pipeline-num-layers", M_FIRST},
    {"--decoder-last-pipeline-num-layers", M_LAST},
    {"--disable-bias-linear", M_NO_BIAS},
    {"--encoder-num-layers", M_NUM_LAYERS},
    {"--encoder-seq-length", M_SEQ},
    {"--exp-avg-dtype", M_EXP_AVG},
    {"--exp-avg-sq-dtype", M_EXP_AVG_SQ},
    {"--expert-model-parallel-size", M_EP},
    {"--expert-tensor-parallel-size", M_ETP},
    {"--ffn-hidden-size", M_FFN},
    {"--fp16", M_FP16},
    {"--fp8-format", M_FP8},
    {"--global-batch-size", M_GB},
    {"--grad-reduce-in-bf16", M_GRAD_BF16},
    {"--group-query-attention", M_GQA},
    {"--hidden-dropout", M_HID_DROP},
    {"--hidden-size", M_HIDDEN},
    {"--hybrid-attention-ratio", M_HYBRID},
    {"--hybrid-mlp-ratio", M_HYBRID},
    {"--kv-channels", M_KV_CHANNELS},
    {"--main-grads-dtype", M_MAIN_GRADS},
    {"--main-params-dtype", M_MAIN_PARAMS},
    {"--make-vocab-size-divisible-by", M_MAKE_DIV},
    {"--max-position-embeddings", M_MAX_POS},
    {"--micro-batch-size", M_MB},
    {"--moe-ffn-hidden-size", M_MOE_FFN},
    {"--moe-layer-freq", M_MOE_FREQ},
    {"--moe-router-topk", M_TOPK},
    {"--moe-shared-expert-intermediate-size", M_SHARED},
    {"--mtp-num-layers", M_MTP},
    {"--normalization", M_NORM},
    {"--num-attention-heads", M_HEADS},
    {"--num-distributed-optimizer-instances", M_DISTOPT_INST},
    {"--num-experts", M_EXPERTS},
    {"--num-layers", M_NUM_LAYERS},
    {"--num-layers-per-virtual-pipeline-stage", M_VPP_LAYERS},
    {"--num-query-groups", M_QUERY_GROUPS},
    {"--num-virtual-stages-per-pipeline-rank", M_VPP_STAGES},
    {"--optimizer", M_OPTIMIZER},
    {"--padded-vocab-size", M_PADDED_VOCAB},
    {"--pipeline-model-parallel-size", M_PP},
    {"--position-embedding-type", M_POS_TYPE},
    {"--recompute-activations", M_RECOMP_ACT},
    {"--recompute-granularity", M_RECOMP_GRAN},
    {"--recompute-method", M_RECOMP_METHOD},
    {"--recompute-modules", M_RECOMP_MODULES},
    {"--recompute-num-layers", M_RECOMP_NUM},
    {"--seq-length", M_SEQ},
    {"--sequence-parallel", M_SP},
    {"--sgd-momentum", M_SGD_MOM},
    {"--swiglu", M_SWIGLU},
    {"--tensor-model-parallel-size", M_TP},
    {"--torch-fsdp2-no-reshard-after-forward", M_FSDP2_NORESHARD},
    {"--untie-embeddings-and-output-weights", M_UNTIE},
    {"--use-distributed-optimizer", M_DISTOPT},
    {"--use-flash-attn", M_USE_FLASH},
    {"--use-megatron-fsdp", M_MFSDP},
    {"--use-precision-aware-optimizer", M_PREC_AWARE},
    {"--use-rotary-position-embeddings", M_ROTARY},
    {"--use-torch-fsdp2", M_FSDP2},
    {"--vocab-size", M_VOCAB},
};

/* Errors: they change memory or time in a way trainplan does not model. */
static const marg_reject reject_args[] = {
    {"--account-for-embedding-in-pipeline-split", "counts the embedding as a layer when splitting the pipeline"},
    {"--account-for-loss-in-pipeline-split", "counts the loss as a layer when splitting the pipeline"},
    {"--batch-size", "is the removed predecessor of --micro-batch-size"},
    {"--checkpoint-activations", "is the removed predecessor of --recompute-activations"},
    {"--distribute-saved-activations", "splits the stored activations across the tensor-parallel group"},
    {"--fp32-residual-connection", "keeps the residual stream in fp32"},
    {"--fp4-format", "trains with FP4 GEMMs"},
    {"--fp4-param-gather", "keeps the parameters in FP4"},
    {"--fp8-param-gather", "keeps the parameters in FP8"},
    {"--heterogeneous-layers-config-encoded-json", "describes layers of different shapes"},
    {"--heterogeneous-layers-config-path", "describes layers of different shapes"},
    {"--hybrid-override-pattern", "builds a hybrid Mamba model"},
    {"--is-hybrid-model", "builds a hybrid Mamba model"},
    {"--kitchen-config-file", "quantises layers with an NVIDIA Kitchen recipe"},
    {"--kitchen-recipe-number", "quantises layers with an NVIDIA Kitchen recipe"},
    {"--model-parallel-size", "is the removed predecessor of --tensor-model-parallel-size"},
    {"--moe-extended-tp", "shards experts across the tensor-parallel group"},
    {"--moe-layer-recompute", "recomputes the MoE layers"},
    {"--multi-latent-attention", "uses multi-latent attention"},
    {"--optimizer-cpu-offload", "offloads the optimizer state to the CPU"},
    {"--perform-rl-step", "runs a reinforcement-learning step"},
    {"--pipeline-model-parallel-layout", "places layers on pipeline stages by a custom layout"},
    {"--quick-geglu", "uses a gated quick-GELU MLP"},
    {"--retro-add-retriever", "adds a Retro retriever"},
    {"--spec", "builds the layers from a custom module spec"},
    {"--squared-relu", "uses a squared-ReLU MLP"},
    {"--use-checkpoint-args", "takes the model arguments from a checkpoint"},
    {"--use-mp-args-from-checkpoint-args", "takes the parallel sizes from a checkpoint"},
    {"--window-size", "uses sliding-window attention"},
    {"--yaml-cfg", "reads further arguments from a YAML file"},
};

/* Approximated: their effect on time or memory is folded into trainplan's
 * calibrated efficiencies and overheads (overlap, fusion, kernels, buckets). */
static const char *const approx_args[] = {
    "--apply-query-key-layer-scaling", "--apply-residual-connection-post-layernorm",
    "--attention-softmax-in-fp32", "--cp-comm-type", "--cross-entropy-fusion-impl",
    "--cross-entropy-loss-fusion", "--cuda-graph-impl", "--cuda-graph-scope",
    "--cuda-graph-warmup-steps", "--ddp-average-in-collective", "--ddp-bucket-size",
    "--ddp-num-buckets", "--ddp-pad-buckets-for-high-nccl-busbw",
    "--ddp-reduce-scatter-with-fp32-accumulation", "--defer-embedding-wgrad-compute",
    "--delay-wgrad-compute", "--deterministic-mode", "--disable-bf16-reduced-precision-matmul",
    "--disable-symmetric-registration", "--disable-tp-comm-bulk-dgrad",
    "--disable-tp-comm-bulk-wgrad", "--disable-tp-comm-overlap-ag", "--disable-tp-comm-overlap-rs",
    "--disable-tp-comm-split-ag", "--disable-tp-comm-split-rs", "--empty-unused-memory-level",
    "--enable-cuda-graph", "--enable-experimental", "--enable-full-sharding-in-hsdp",
    "--external-cuda-graph", "--first-last-layers-bf16", "--fp16-lm-cross-entropy",
    "--fp8-amax-compute-algo", "--fp8-amax-history-len", "--fp8-interval", "--fp8-margin",
    "--fp8-quantizer-factory", "--fp8-recipe", "--fsdp-double-buffer",
    "--hierarchical-context-parallel-sizes", "--high-priority-stream-groups",
    "--keep-fp8-transpose-cache", "--manual-gc", "--manual-gc-interval",
    "--microbatch-group-size-per-virtual-pipeline-stage", "--moe-apply-probs-on-input",
    "--moe-deepep-num-sms", "--moe-enable-deepep", "--moe-expert-capacity-factor",
    "--moe-grouped-gemm", "--moe-pad-expert-input-to-capacity", "--moe-permute-fusion",
    "--moe-router-dtype", "--moe-router-enable-expert-bias", "--moe-router-force-load-balancing",
    "--moe-router-fusion", "--moe-router-group-topk", "--moe-router-num-groups",
    "--moe-router-padding-for-fp8", "--moe-router-pre-softmax", "--moe-router-score-function",
    "--moe-router-topk-scaling-factor", "--moe-shared-expert-overlap",
    "--moe-token-dispatcher-type", "--moe-token-drop-policy", "--moe-upcycling-granularity",
    "--moe-use-legacy-grouped-gemm", "--nccl-communicator-config-path", "--no-align-grad-reduce",
    "--no-align-param-gather", "--no-bias-dropout-fusion", "--no-bias-gelu-fusion",
    "--no-bias-swiglu-fusion", "--no-clone-scatter-output-in-embedding",
    "--no-create-attention-mask-in-dataloader", "--no-fp8-wgrad",
    "--no-gradient-accumulation-fusion", "--no-gradient-reduce-div-fusion", "--no-manual-gc-eval",
    "--no-masked-softmax-fusion", "--no-overlap-p2p-communication", "--no-persist-layer-norm",
    "--no-rope-freq", "--no-rope-fusion", "--no-scatter-gather-tensors-in-pipeline",
    "--num-layers-at-end-in-bf16", "--num-layers-at-start-in-bf16", "--openai-gelu",
    "--overlap-cpu-optimizer-d2h-h2d", "--overlap-grad-reduce",
    "--overlap-moe-expert-parallel-comm", "--overlap-p2p-communication-warmup-flush",
    "--overlap-param-gather", "--overlap-param-gather-with-optimizer-step",
    "--pipeline-model-parallel-comm-backend", "--qk-l2-norm", "--qk-layernorm",
    "--rampup-batch-size", "--reuse-grad-buf-for-mxfp8-param-ag", "--sharp-enabled-group",
    "--softmax-type", "--suggested-communication-unit-size", "--tp-comm-bootstrap-backend",
    "--tp-comm-overlap", "--tp-comm-overlap-cfg", "--tp-comm-overlap-rs-dgrad",
    "--train-sync-interval", "--transformer-impl", "--use-fused-weighted-squared-relu",
    "--use-legacy-models", "--use-nccl-ub", "--use-ring-exchange-p2p", "--use-sharp",
    "--use-te-activation-func", "--use-tp-pp-dp-mapping", "--wgrad-deferral-limit",
};

/* Ignored: they cannot change the memory or time of a training step
 * (data, tokenizer, learning rate, checkpoints, logging, other models). */
static const char *const ignored_args[] = {
    "--activation-func-clamp-value", "--adam-beta1", "--adam-beta2", "--adam-eps",
    "--adlr-autoresume", "--adlr-autoresume-interval", "--allow-ambiguous-pad-tokens",
    "--app-tag-run-name", "--app-tag-run-version", "--apply-layernorm-1p", "--async-save",
    "--auto-detect-ckpt-format", "--bert-embedder-type", "--bert-load", "--bert-no-binary-head",
    "--biencoder-projection-dim", "--biencoder-shared-query-context-model", "--block-data-path",
    "--cache-mla-latents", "--calc-ft-timeouts", "--calculate-per-token-loss",
    "--check-for-large-grads", "--check-for-spiky-loss",
    "--check-weight-hash-across-dp-replicas-interval", "--ckpt-assume-constant-structure",
    "--ckpt-convert-format", "--ckpt-convert-save", "--ckpt-convert-update-legacy-dist-opt-format",
    "--ckpt-format", "--ckpt-fully-parallel-load", "--ckpt-fully-parallel-save", "--ckpt-step",
    "--classes-fraction", "--clip-grad", "--config-logger-dir", "--data-args-path",
    "--data-cache-path", "--data-parallel-random-init", "--data-path", "--data-per-class-fraction",
    "--dataloader-type", "--decode-only-cuda-graphs", "--decoder-num-layers",
    "--decoder-seq-length", "--decoupled-lr", "--decoupled-min-lr",
    "--decrease-batch-size-if-needed", "--dino-bottleneck-size", "--dino-freeze-last-layer",
    "--dino-head-hidden-size", "--dino-local-crops-number", "--dino-local-img-size",
    "--dino-norm-last-layer", "--dino-teacher-temp", "--dino-warmup-teacher-temp",
    "--dino-warmup-teacher-temp-epochs", "--disable-chunked-prefill",
    "--disable-gloo-process-groups", "--disable-mamba-mem-eff-path", "--disable-msc",
    "--disable-straggler-on-startup", "--dist-ckpt-format", "--dist-ckpt-optim-fully-reshardable",
    "--dist-ckpt-save-pre-mcore-014", "--dist-ckpt-strictness",
    "--distrib-optim-fully-reshardable-mem-efficient", "--distributed-backend",
    "--distributed-timeout-minutes", "--distributed-timeout-seconds-after-init",
    "--dump-param-to-param-group-map", "--embedding-init-method-std", "--embedding-path",
    "--enable-ft-package", "--end-weight-decay", "--eod-mask-loss", "--error-injection-rate",
    "--error-injection-type", "--eval-interval", "--eval-iters", "--evidence-data-path",
    "--exit-duration-in-mins", "--exit-interval", "--exit-on-missing-checkpoint",
    "--exit-signal-handler", "--finetune", "--flash-decode", "--fp4-quantizer-factory",
    "--fp4-recipe", "--full-validation", "--glu-linear-offset", "--grpo-clamp-eps-lower",
    "--grpo-clamp-eps-upper", "--grpo-default-temperature", "--grpo-default-top-p",
    "--grpo-entropy-term-weight", "--grpo-filter-groups-with-same-reward", "--grpo-group-size",
    "--grpo-iterations", "--grpo-kl-beta", "--grpo-prompts-per-step", "--head-lr-mult",
    "--hysteresis", "--ict-head-size", "--ict-load", "--img-h", "--img-w", "--indexer-batch-size",
    "--indexer-log-interval", "--inference-batch-times-seqlen-threshold",
    "--inference-dynamic-batching", "--inference-dynamic-batching-block-size",
    "--inference-dynamic-batching-buffer-guaranteed-fraction",
    "--inference-dynamic-batching-buffer-overflow-factor",
    "--inference-dynamic-batching-buffer-size-gb",
    "--inference-dynamic-batching-max-requests-override",
    "--inference-dynamic-batching-max-tokens-override",
    "--inference-dynamic-batching-num-cuda-graphs",
    "--inference-dynamic-batching-track-paused-request-events",
    "--inference-dynamic-batching-unified-memory-level", "--inference-max-batch-size",
    "--inference-max-requests", "--inference-max-seq-length", "--inference-rng-tracker",
    "--inference-wandb-logging-step-interval", "--init-method-std", "--init-method-xavier-uniform",
    "--init-model-with-meta-device", "--initial-loss-scale", "--inprocess-active-world-size",
    "--inprocess-barrier-timeout", "--inprocess-completion-timeout",
    "--inprocess-empty-cuda-cache", "--inprocess-granularity", "--inprocess-hard-timeout",
    "--inprocess-heartbeat-interval", "--inprocess-heartbeat-timeout",
    "--inprocess-last-call-wait", "--inprocess-max-iterations",
    "--inprocess-monitor-process-interval", "--inprocess-monitor-thread-interval",
    "--inprocess-progress-watchdog-interval", "--inprocess-restart", "--inprocess-soft-timeout",
    "--inprocess-termination-grace-time", "--iter-per-epoch", "--iterations-to-skip",
    "--kv-lora-rank", "--langrl-env-config", "--langrl-external-server",
    "--langrl-inference-server-conversation-template", "--langrl-inference-server-type",
    "--lazy-mpu-init", "--legacy-tokenizer", "--load", "--load-main-params-from-ckpt",
    "--local-rank", "--log-energy", "--log-interval", "--log-memory-to-tensorboard",
    "--log-num-zeros-in-grad", "--log-params-norm", "--log-progress", "--log-straggler",
    "--log-throughput", "--log-timers-to-tensorboard", "--log-validation-ppl-to-tensorboard",
    "--log-world-size-to-tensorboard", "--logging-level", "--loss-scale", "--loss-scale-window",
    "--lr", "--lr-decay-iters", "--lr-decay-samples", "--lr-decay-style", "--lr-warmup-fraction",
    "--lr-warmup-init", "--lr-warmup-iters", "--lr-warmup-samples", "--lr-wsd-decay-iters",
    "--lr-wsd-decay-samples", "--lr-wsd-decay-style", "--mamba-head-dim", "--mamba-num-groups",
    "--mamba-num-heads", "--mamba-state-dim", "--mask-factor", "--mask-prob", "--mask-type",
    "--max-tokens-to-oom", "--memory-snapshot-path", "--merge-file", "--mid-level-dataset-surplus",
    "--min-loss-scale", "--min-lr", "--mlp-chunks-for-prefill", "--mock-data",
    "--moe-aux-loss-coeff", "--moe-input-jitter-eps", "--moe-pad-experts-for-cuda-graph-inference",
    "--moe-per-layer-logging", "--moe-router-bias-update-rate", "--moe-router-load-balancing-type",
    "--moe-use-upcycling", "--moe-z-loss-coeff", "--mrope-section", "--mscale", "--mscale-all-dim",
    "--mtp-loss-scaling-factor", "--multiple-validation-sets", "--muon-extra-scale-factor",
    "--muon-fp32-matmul-prec", "--muon-momentum", "--muon-no-split-qkv", "--muon-num-ns-steps",
    "--muon-scale-mode", "--muon-tp-mode", "--muon-use-nesterov", "--nccl-all-reduce-for-prefill",
    "--no-async-tensor-model-parallel-allreduce", "--no-barrier-with-level-1-timing",
    "--no-check-for-nan-in-loss-and-grad", "--no-ckpt-fully-parallel-save", "--no-data-sharding",
    "--no-initialization", "--no-langrl-external-server", "--no-load-optim", "--no-load-rng",
    "--no-log-loss-scale-to-tensorboard", "--no-mmap-bin-files", "--no-one-logger",
    "--no-pin-cpu-grads", "--no-pin-cpu-params", "--no-position-embedding",
    "--no-rl-calculate-intra-group-similarity", "--no-rl-inference-logprobs-is-correction",
    "--no-rl-offload-kv-cache-during-training", "--no-rl-partial-rollouts",
    "--no-rl-remove-kv-cache-during-training", "--no-rl-reset-cuda-graphs", "--no-save-optim",
    "--no-save-rng", "--no-strict-fsdp-dtensor-load",
    "--no-use-tokenizer-model-from-checkpoint-args", "--non-persistent-ckpt-type",
    "--non-persistent-global-ckpt-dir", "--non-persistent-local-ckpt-algo",
    "--non-persistent-local-ckpt-dir", "--non-persistent-save-interval", "--norm-epsilon",
    "--num-channels", "--num-classes", "--num-dataset-builder-threads", "--num-workers",
    "--object-storage-cache-path", "--one-logger-async", "--one-logger-project",
    "--one-logger-run-name", "--onnx-safe", "--optimizer-offload-fraction",
    "--output-bert-embeddings", "--override-opt-param-scheduler", "--override-opt_param-scheduler",
    "--patch-dim", "--per-split-data-args-path", "--persistent-save-interval",
    "--pretrained-checkpoint", "--profile", "--profile-ranks", "--profile-step-end",
    "--profile-step-start", "--q-lora-rank", "--qk-head-dim", "--qk-pos-emb-head-dim",
    "--query-in-block-prob", "--record-memory-history", "--relative-attention-max-distance",
    "--relative-attention-num-buckets", "--replication", "--replication-factor",
    "--replication-jump", "--rerun-mode", "--reset-attention-mask", "--reset-position-ids",
    "--result-rejected-tracker-filename", "--retriever-report-topk-accuracies",
    "--retriever-score-scaling", "--retriever-seq-length", "--retro-attention-gate",
    "--retro-cyclic-train-iters", "--retro-encoder-attention-dropout",
    "--retro-encoder-hidden-dropout", "--retro-encoder-layers", "--retro-no-verify-neighbor-count",
    "--retro-num-neighbors", "--retro-num-retrieved-chunks", "--retro-project-dir",
    "--rl-calculate-intra-group-similarity", "--rl-importance-sampling-truncation-coef",
    "--rl-inference-logprobs-is-correction", "--rl-offload-kv-cache-during-training",
    "--rl-offload-optimizer-during-inference", "--rl-partial-rollouts", "--rl-prompts-per-eval",
    "--rl-remove-kv-cache-during-training", "--rl-reset-cuda-graphs", "--rl-sequence-packing-algo",
    "--rl-sequence-packing-bin-size", "--rl-use-sequence-packing", "--rope-scaling-factor",
    "--rope-type", "--rotary-base", "--rotary-interleaved", "--rotary-percent",
    "--rotary-scaling-factor", "--rotary-seq-len-interpolation-factor",
    "--run-workload-inspector-server", "--sample-rate", "--save", "--save-interval",
    "--save-retain-interval", "--seed", "--sft", "--sft-tokenizer-prompt-format",
    "--short-seq-prob", "--skip-train", "--split", "--start-weight-decay",
    "--straggler-ctrlr-port", "--straggler-minmax-count", "--swin-backbone-type",
    "--symmetric-ar-type", "--te-rng-tracker", "--tensorboard-dir", "--tensorboard-log-interval",
    "--tensorboard-queue-size", "--test-data-path", "--test-mode", "--tiktoken-num-special-tokens",
    "--tiktoken-pattern", "--tiktoken-special-tokens", "--timing-log-level", "--timing-log-option",
    "--titles-data-path", "--tokenizer-metadata", "--tokenizer-model", "--tokenizer-type",
    "--train-data-path", "--train-iters", "--train-samples", "--trust-remote-code",
    "--use-checkpoint-opt-param-scheduler", "--use-checkpoint-opt_param-scheduler",
    "--use-cpu-initialization", "--use-dist-ckpt", "--use-legacy-static-engine",
    "--use-mcore-models", "--use-one-sent-docs", "--use-persistent-ckpt-worker",
    "--use-pytorch-profiler", "--use-rope-scaling", "--use-torch-optimizer-for-cpu-offload",
    "--v-head-dim", "--valid-data-path", "--vision-backbone-type", "--vision-pretraining",
    "--vision-pretraining-type", "--vocab-extra-ids", "--vocab-file", "--wandb-entity",
    "--wandb-exp-name", "--wandb-project", "--wandb-save-dir", "--warmup", "--weight-decay",
    "--weight-decay-incr-style", "--window-attn-skip-freq",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

size_t tp_io_import_megatron_known_count(void)
{
    return NELEM(map_args) + NELEM(reject_args) + NELEM(approx_args) + NELEM(ignored_args);
}

const char *tp_io_import_megatron_known(size_t i)
{
    if (i < NELEM(map_args))
        return map_args[i].name;
    i -= NELEM(map_args);
    if (i < NELEM(reject_args))
        return reject_args[i].name;
    i -= NELEM(reject_args);
    if (i < NELEM(approx_args))
        return approx_args[i];
    i -= NELEM(approx_args);
    if (i < NELEM(ignored_args))
        return ignored_args[i];
    return NULL;
}

/* Switches (action store_true/store_false): they take no value. */
static bool is_switch(enum mid id)
{
    switch (id) {
    case M_GQA: case M_ROTARY: case M_SWIGLU: case M_UNTIE: case M_NO_BIAS: case M_QKV_BIAS:
    case M_USE_FLASH: case M_SP: case M_DISTOPT: case M_MFSDP: case M_FSDP2:
    case M_FSDP2_NORESHARD: case M_RECOMP_ACT: case M_BF16: case M_FP16: case M_GRAD_BF16:
    case M_ACC_FP32: case M_PREC_AWARE:
        return true;
    default:
        return false;
    }
}

#define MAXV 16 /* values of one nargs='*' argument (--recompute-modules) */

typedef struct slot {
    bool set;
    const char *name;        /* as written: "--num-layers" or an alias */
    const word *flag;        /* the word of the flag */
    const char *v[MAXV];     /* values */
    const word *vw[MAXV];    /* their words (the flag's word for --flag=value) */
    int nv;
} slot;

static const char *suggest(const char *name)
{
    size_t best_d = 99;
    const char *best = NULL;
    for (size_t i = 0; i < tp_io_import_megatron_known_count(); i++) {
        const char *k = tp_io_import_megatron_known(i);
        size_t d = tp_io_edit_distance(name, k, false);
        if (d < best_d) {
            best_d = d;
            best = k;
        }
    }
    return (best && best_d <= 3 && best_d * 3 <= strlen(name)) ? best : NULL;
}

/* ---- values ---- */

static const word *val_word(const slot *s, int i)
{
    return (i < s->nv && s->vw[i]) ? s->vw[i] : s->flag;
}

static tp_status one_value(const slot *s, const char **out, tp_error *err)
{
    if (s->nv == 0)
        return at(err, s->flag,
                  tp_error_set(err, TP_ERR_CONFIG, s->name, "\"%s\" needs a value", s->name));
    if (s->nv > 1)
        return at(err, val_word(s, 1),
                  tp_error_set(err, TP_ERR_CONFIG, s->name,
                               "\"%s\" takes one value (got \"%s\" and \"%s\")", s->name, s->v[0],
                               s->v[1]));
    if (s->vw[0] && s->vw[0]->var)
        return at(err, val_word(s, 0),
                  tp_error_set(err, TP_ERR_CONFIG, s->name,
                               "\"%s\" has the unexpanded shell value \"%s\"; expand the "
                               "variables before importing",
                               s->name, s->v[0]));
    *out = s->v[0];
    return TP_OK;
}

/* A number parser's error located at the slot's value word, path = the argument. */
static tp_status value_error(const slot *s, tp_status st, tp_error *err)
{
    if (st == TP_OK)
        return st;
    if (err)
        snprintf(err->path, sizeof err->path, "%s", s->name);
    return at(err, val_word(s, 0), st);
}

static tp_status val_i64(const slot *s, int64_t min, int64_t max, int64_t *out, tp_error *err)
{
    const char *v;
    tp_status st = one_value(s, &v, err);
    if (st != TP_OK)
        return st;
    return value_error(s, tp_io_parse_i64(s->name, v, min, max, out, err), err);
}

static tp_status val_f64(const slot *s, double min, double max, double *out, tp_error *err)
{
    const char *v;
    tp_status st = one_value(s, &v, err);
    if (st != TP_OK)
        return st;
    return value_error(s, tp_io_parse_f64(s->name, v, min, max, out, err), err);
}

/* Index of the value in choices (NULL-terminated), or an error listing them. */
static tp_status val_choice(const slot *s, const char *const *choices, int *out, tp_error *err)
{
    const char *v;
    tp_status st = one_value(s, &v, err);
    if (st != TP_OK)
        return st;
    char list[256] = "";
    for (int i = 0; choices[i]; i++) {
        if (strcmp(v, choices[i]) == 0) {
            *out = i;
            return TP_OK;
        }
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", choices[i]);
    }
    return at(err, val_word(s, 0),
              tp_error_set(err, TP_ERR_CONFIG, s->name, "\"%s\" must be one of %s (got \"%s\")",
                           s->name, list, v));
}

static tp_status not_modelled(const slot *s, const char *what, tp_error *err)
{
    tp_error_set(err, TP_ERR_CONFIG, s->name,
                 "%s, which changes memory or time in a way trainplan does not model", what);
    /* err->path names the argument unless the message quotes it with its value */
    char quoted[96];
    snprintf(quoted, sizeof quoted, "\"%s\"", s->name);
    if (err && !strstr(what, quoted))
        err->path[0] = '\0';
    return at(err, s->flag, TP_ERR_CONFIG);
}

/*
 * Whole-number arguments that trainplan cannot model unless they keep their
 * neutral value: the range they are read in, that value, and what any other
 * value does (the error names it).
 */
typedef struct unmodelled_int {
    enum mid id;
    int64_t lo, hi, neutral;
    const char *does;
} unmodelled_int;

static const unmodelled_int unmodelled_ints[] = {
    {M_CPU_OFFLOAD, 0, MAX_LAYERS, 0, "offloads activations to the CPU"},
    {M_MTP, 0, MAX_LAYERS, 0, "adds multi-token prediction layers"},
    {M_DISTOPT_INST, 1, MAX_GPUS, 1, "keeps several distributed-optimizer copies"},
};

/* Arguments checked where they stand (a value that only matters when set). */
static tp_status check_on_sight(const slot *s, enum mid id, tp_error *err)
{
    char what[160];
    tp_status st;
    for (size_t i = 0; i < sizeof unmodelled_ints / sizeof unmodelled_ints[0]; i++) {
        const unmodelled_int *u = &unmodelled_ints[i];
        if (u->id != id)
            continue;
        int64_t n = 0;
        st = val_i64(s, u->lo, u->hi, &n, err);
        if (st != TP_OK || n == u->neutral)
            return st;
        snprintf(what, sizeof what, "\"%s %" PRId64 "\" %s", s->name, n, u->does);
        return not_modelled(s, what, err);
    }
    if (id == M_HYBRID) {
        double x = 0.0;
        st = val_f64(s, 0.0, 1.0, &x, err);
        if (st != TP_OK || !(x > 0.0))
            return st;
        snprintf(what, sizeof what, "\"%s %g\" builds a hybrid Mamba model", s->name, x);
        return not_modelled(s, what, err);
    }
    return TP_OK;
}

/* ---- the MoE layer pattern (--moe-layer-freq) ---- */

typedef struct pat {
    const char *p;
    int *v;
    size_t n, cap;
    bool bad;
} pat;

static void pat_push(pat *q, int x)
{
    if (q->bad)
        return;
    if (q->n >= 1000000) {
        q->bad = true;
        return;
    }
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 64;
        int *nv = realloc(q->v, cap * sizeof *nv);
        if (!nv) {
            q->bad = true;
            return;
        }
        q->v = nv;
        q->cap = cap;
    }
    q->v[q->n++] = x;
}

static long pat_int(pat *q)
{
    if (*q->p < '0' || *q->p > '9') {
        q->bad = true;
        return 0;
    }
    long v = 0;
    while (*q->p >= '0' && *q->p <= '9' && v < 10000000)
        v = v * 10 + (*q->p++ - '0');
    return v;
}

static void pat_expr(pat *q, int depth);

/* atom ('*' INT)* */
static void pat_term(pat *q, int depth)
{
    size_t start = q->n;
    if (*q->p == '[') {
        q->p++;
        for (;;) {
            long x = pat_int(q);
            if (q->bad)
                return;
            pat_push(q, (int)x);
            if (*q->p == ',') {
                q->p++;
                continue;
            }
            if (*q->p == ']') {
                q->p++;
                break;
            }
            q->bad = true;
            return;
        }
    } else if (*q->p == '(' && depth < 16) {
        q->p++;
        pat_expr(q, depth + 1);
        if (q->bad || *q->p != ')') {
            q->bad = true;
            return;
        }
        q->p++;
    } else {
        q->bad = true;
        return;
    }
    while (*q->p == '*' && !q->bad) {
        q->p++;
        long k = pat_int(q);
        size_t len = q->n - start;
        if (q->bad || k < 0 || (size_t)k * len > 1000000) {
            q->bad = true;
            return;
        }
        if (k == 0) {
            q->n = start;
            continue;
        }
        for (long r = 1; r < k; r++)
            for (size_t i = 0; i < len; i++)
                pat_push(q, q->v[start + i]);
    }
}

static void pat_expr(pat *q, int depth)
{
    pat_term(q, depth);
    while (!q->bad && *q->p == '+') {
        q->p++;
        pat_term(q, depth);
    }
}

/* --moe-layer-freq as trainplan's (first dense layers, every k-th after). */
static tp_status moe_freq(const slot *s, int64_t L, int64_t *first_dense, int64_t *freq,
                          tp_error *err)
{
    const char *v;
    tp_status st = one_value(s, &v, err);
    if (st != TP_OK)
        return st;
    if (v[0] >= '0' && v[0] <= '9' && strspn(v, "0123456789") == strlen(v)) {
        int64_t n;
        st = val_i64(s, 1, MAX_LAYERS, &n, err);
        if (st != TP_OK)
            return st;
        *first_dense = 0; /* Megatron: layer i is MoE when i % n == 0 */
        *freq = n;
        return TP_OK;
    }
    char compact[512];
    size_t o = 0;
    for (const char *p = v; *p && o + 1 < sizeof compact; p++)
        if (*p != ' ')
            compact[o++] = *p;
    compact[o] = '\0';
    pat q = {compact, NULL, 0, 0, false};
    pat_expr(&q, 0);
    if (!q.bad && *q.p != '\0')
        q.bad = true;
    if (q.bad || (int64_t)q.n != L) {
        free(q.v);
        if (q.bad)
            return at(err, val_word(s, 0),
                      tp_error_set(err, TP_ERR_CONFIG, s->name,
                                   "\"%s\" value \"%s\" is not an integer or a list expression "
                                   "such as ([0]*3+[1]*29)",
                                   s->name, v));
        return at(err, val_word(s, 0),
                  tp_error_set(err, TP_ERR_CONFIG, s->name,
                               "\"%s\" lists %zu layers but the model has %" PRId64, s->name, q.n,
                               L));
    }
    int64_t d = -1, k = 0;
    for (int64_t i = 0; i < L; i++) {
        if (q.v[i] != 0 && d < 0) {
            d = i;
        } else if (q.v[i] != 0 && k == 0) {
            k = i - d;
        }
    }
    bool ok = d >= 0;
    if (ok && k == 0)
        k = L - d; /* a single MoE layer */
    for (int64_t i = 0; ok && i < L; i++) {
        bool moe = i >= d && (i - d) % k == 0;
        if (moe != (q.v[i] != 0))
            ok = false;
    }
    free(q.v);
    if (!ok)
        return at(err, val_word(s, 0),
                  tp_error_set(err, TP_ERR_CONFIG, s->name,
                               "\"%s\" pattern \"%s\" is not \"N dense layers, then every k-th "
                               "layer MoE\", the only layer patterns trainplan models",
                               s->name, v));
    *first_dense = d;
    *freq = k;
    return TP_OK;
}

/* ---- the launcher before the script ---- */

/* Value of a launcher option at words[*i] ("--opt v" or "--opt=v"). */
static const char *launch_value(const words *ws, size_t *i, size_t end, const char *opt)
{
    const char *w = ws->w[*i].s;
    size_t n = strlen(opt);
    if (strncmp(w, opt, n) != 0)
        return NULL;
    if (w[n] == '=')
        return w + n + 1;
    if (w[n] != '\0' || *i + 1 >= end)
        return NULL;
    (*i)++;
    return ws->w[*i].s;
}

static bool known_megatron(const char *w);

/* Find "script.py": the launcher precedes it; its GPU count, if any. */
static tp_status scan_launcher(const words *ws, size_t *argstart, tp_import *im, tp_error *err)
{
    size_t i0 = *argstart, script = ws->n;
    for (size_t i = i0; i < ws->n; i++) {
        const char *w = ws->w[i].s;
        if (strncmp(w, "--", 2) == 0 && known_megatron(w))
            break;
        size_t len = strlen(w);
        if (len > 3 && strcmp(w + len - 3, ".py") == 0) {
            script = i;
            break;
        }
    }
    if (script == ws->n)
        return TP_OK;
    int64_t nproc = 0, nnodes = 0, ds_gpus = 0, ds_nodes = 0;
    for (size_t i = i0; i < script; i++) {
        const char *v;
        int64_t *dst = NULL;
        const char *opt = NULL;
        static const char *const opts[] = {"--nproc_per_node", "--nproc-per-node", "--nnodes",
                                           "--num_gpus",       "--num-gpus",        "--num_nodes",
                                           "--num-nodes"};
        for (size_t k = 0; k < NELEM(opts); k++) {
            size_t j = i;
            v = launch_value(ws, &j, script, opts[k]);
            if (!v)
                continue;
            opt = opts[k];
            dst = k < 2 ? &nproc : k == 2 ? &nnodes : k < 5 ? &ds_gpus : &ds_nodes;
            const word *vw = &ws->w[j];
            i = j;
            if (vw->var) {
                assume(im, "the launcher's GPU count is a shell variable (give --gpus)");
                dst = NULL;
                break;
            }
            int64_t a = 0, b = 0;
            char tail = 0;
            int got = sscanf(v, "%" SCNd64 ":%" SCNd64 "%c", &a, &b, &tail);
            if (got == 2 && a != b) {
                tp_error_set(err, TP_ERR_CONFIG, opt,
                             "launcher option %s %s is an elastic range; give --gpus", opt, v);
                return at(err, vw, TP_ERR_CONFIG);
            }
            if (got < 1 || a < 1 || a > MAX_GPUS || (got == 1 && strspn(v, "0123456789") != strlen(v))) {
                char msg[160];
                snprintf(msg, sizeof msg, "launcher option %s %s is not a GPU count (give --gpus)",
                         opt, v);
                assume(im, msg);
                dst = NULL;
                break;
            }
            *dst = a;
            break;
        }
    }
    if (nproc > 0) { /* torchrun: --nnodes defaults to 1 */
        int64_t nodes = nnodes > 0 ? nnodes : 1;
        if (!push_i64(im, "--gpus", nproc * nodes) || !push_i64(im, "--gpus-per-node", nproc))
            return full(err);
        im->has_gpus = true;
    } else if (ds_gpus > 0 && ds_nodes > 0) {
        if (!push_i64(im, "--gpus", ds_gpus * ds_nodes) || !push_i64(im, "--gpus-per-node", ds_gpus))
            return full(err);
        im->has_gpus = true;
    }
    *argstart = script + 1;
    return TP_OK;
}

/* ---- classification ---- */

static bool name_eq(const char *w, const char *name)
{
    size_t n = strcspn(w, "=");
    return strlen(name) == n && strncmp(w, name, n) == 0;
}

static const marg_map *find_map(const char *w)
{
    for (size_t i = 0; i < NELEM(map_args); i++)
        if (name_eq(w, map_args[i].name))
            return &map_args[i];
    return NULL;
}

static const marg_reject *find_reject(const char *w)
{
    for (size_t i = 0; i < NELEM(reject_args); i++)
        if (name_eq(w, reject_args[i].name))
            return &reject_args[i];
    return NULL;
}

static const char *find_in(const char *w, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (name_eq(w, list[i]))
            return list[i];
    return NULL;
}

static bool known_megatron(const char *w)
{
    return find_map(w) || find_reject(w) || find_in(w, approx_args, NELEM(approx_args)) ||
           find_in(w, ignored_args, NELEM(ignored_args));
}

static bool is_env_assignment(const char *w)
{
    if (!((*w >= 'A' && *w <= 'Z') || (*w >= 'a' && *w <= 'z') || *w == '_'))
        return false;
    size_t n = strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
    return w[n] == '=';
}

/* Pass 1: every flag into its slot or list; errors for rejected and unknown ones. */
static tp_status scan_args(const words *ws, size_t start, slot *slots, tp_import *im, tp_error *err)
{
    const word *first_unknown = NULL;
    char unknown[512] = "";
    int n_unknown = 0;
    size_t i = start;
    while (i < ws->n) {
        const word *w = &ws->w[i];
        if (strncmp(w->s, "--", 2) != 0) {
            if (w->var)
                tp_error_set(err, TP_ERR_CONFIG, "",
                             "unexpected argument \"%s\": expand the shell variables before "
                             "importing",
                             w->s);
            else
                tp_error_set(err, TP_ERR_CONFIG, "",
                             "unexpected argument \"%s\" (expected a --flag of Megatron-LM)", w->s);
            return at(err, w, TP_ERR_CONFIG);
        }
        const char *eq = strchr(w->s, '=');
        size_t j = i + 1;
        while (j < ws->n && strncmp(ws->w[j].s, "--", 2) != 0)
            j++;
        /* words i+1 .. j-1 are this flag's values */
        const marg_map *mp = find_map(w->s);
        if (mp) {
            slot *s = &slots[mp->id];
            memset(s, 0, sizeof *s);
            s->set = true;
            s->name = mp->name;
            s->flag = w;
            if (eq) {
                s->v[s->nv] = eq + 1;
                s->vw[s->nv++] = w;
            }
            for (size_t k = i + 1; k < j; k++) {
                if (s->nv >= MAXV)
                    return at(err, &ws->w[k],
                              tp_error_set(err, TP_ERR_CONFIG, mp->name,
                                           "\"%s\" has more than %d values", mp->name, MAXV));
                s->v[s->nv] = ws->w[k].s;
                s->vw[s->nv++] = &ws->w[k];
            }
            if (is_switch(mp->id) && s->nv > 0)
                return at(err, val_word(s, 0),
                          tp_error_set(err, TP_ERR_CONFIG, mp->name,
                                       "\"%s\" takes no value (got \"%s\")", mp->name, s->v[0]));
            /* as argparse: a flag that takes a value refuses to stand without one
             * (--recompute-modules is nargs='*' and may) */
            if (!is_switch(mp->id) && mp->id != M_RECOMP_MODULES && s->nv == 0)
                return at(err, w,
                          tp_error_set(err, TP_ERR_CONFIG, mp->name,
                                       "\"%s\" needs a value", mp->name));
            tp_status st = check_on_sight(s, mp->id, err);
            if (st != TP_OK)
                return st;
        } else {
            const marg_reject *rj = find_reject(w->s);
            const char *name;
            if (rj) {
                char what[200];
                snprintf(what, sizeof what, "\"%s\" %s", rj->name, rj->why);
                slot s = {.set = true, .name = rj->name, .flag = w};
                return not_modelled(&s, what, err);
            } else if ((name = find_in(w->s, approx_args, NELEM(approx_args))) != NULL) {
                list_add(im->approximated, sizeof im->approximated, name);
            } else if ((name = find_in(w->s, ignored_args, NELEM(ignored_args))) != NULL) {
                list_add(im->ignored, sizeof im->ignored, name);
            } else {
                char nm[128];
                snprintf(nm, sizeof nm, "%.*s", (int)strcspn(w->s, "="), w->s);
                if (!first_unknown)
                    first_unknown = w;
                size_t len = strlen(unknown);
                if (len + strlen(nm) + 8 < sizeof unknown)
                    snprintf(unknown + len, sizeof unknown - len, "%s\"%s\"", len ? ", " : "", nm);
                n_unknown++;
            }
        }
        i = j;
    }
    if (n_unknown == 1) {
        char nm[128];
        snprintf(nm, sizeof nm, "%.*s", (int)strcspn(first_unknown->s, "="), first_unknown->s);
        const char *s = suggest(nm);
        char hint[160] = "";
        if (s)
            snprintf(hint, sizeof hint, " (did you mean \"%s\"?)", s);
        tp_error_set(err, TP_ERR_CONFIG, "",
                     "unknown Megatron-LM argument %s%s: trainplan cannot tell whether it changes "
                     "memory or time",
                     unknown, hint);
        return at(err, first_unknown, TP_ERR_CONFIG);
    }
    if (n_unknown > 1) {
        tp_error_set(err, TP_ERR_CONFIG, "",
                     "unknown Megatron-LM arguments %s: trainplan cannot tell whether they change "
                     "memory or time",
                     unknown);
        return at(err, first_unknown, TP_ERR_CONFIG);
    }
    return TP_OK;
}

static tp_status missing(const char *name, tp_error *err)
{
    return tp_error_set(err, TP_ERR_CONFIG, name, "the arguments do not set \"%s\"", name);
}

#define PUSH(x)                                                                                  \
    do {                                                                                         \
        if (!(x))                                                                                \
            return full(err);                                                                    \
    } while (0)

/* Integer slot with a default. */
static tp_status opt_i64(const slot *s, int64_t def, int64_t min, int64_t max, int64_t *out,
                         tp_error *err)
{
    if (!s->set) {
        *out = def;
        return TP_OK;
    }
    return val_i64(s, min, max, out, err);
}

static const char *const dtype_names[] = {"fp32", "bf16", "fp16", "fp8", NULL};

/* Pass 2: the model (im->model) and the equivalent trainplan flags. */
static tp_status interpret(const slot *sl, const char *origin, tp_import *im, tp_error *err)
{
    tp_model *m = &im->model;
    memset(m, 0, sizeof *m);
    origin_name(origin, "megatron-args", m->name, sizeof m->name);
    im->has_model = true;

    /* ---- shape ---- */
    if (!sl[M_NUM_LAYERS].set)
        return missing("--num-layers", err);
    if (!sl[M_HIDDEN].set)
        return missing("--hidden-size", err);
    if (!sl[M_HEADS].set)
        return missing("--num-attention-heads", err);
    TP_TRY(val_i64(&sl[M_NUM_LAYERS], 1, MAX_LAYERS, &m->num_layers, err));
    TP_TRY(val_i64(&sl[M_HIDDEN], 1, MAX_DIM, &m->hidden, err));
    TP_TRY(val_i64(&sl[M_HEADS], 1, MAX_DIM, &m->num_heads, err));
    int64_t L = m->num_layers, h = m->hidden, a = m->num_heads;
    bool swiglu = sl[M_SWIGLU].set;
    m->mlp = swiglu ? TP_MLP_SWIGLU : TP_MLP_GELU;
    /* Megatron's default: 4h, or int((4h * 2/3) / 64) * 64 with SwiGLU */
    TP_TRY(opt_i64(&sl[M_FFN], swiglu ? (8 * h / 192) * 64 : 4 * h, 1, MAX_FFN, &m->ffn_hidden,
                   err));
    if (m->ffn_hidden < 1)
        return missing("--ffn-hidden-size", err);
    if (sl[M_KV_CHANNELS].set) {
        TP_TRY(val_i64(&sl[M_KV_CHANNELS], 1, MAX_DIM, &m->head_dim, err));
    } else {
        if (h % a != 0)
            return at(err, sl[M_HIDDEN].flag,
                      tp_error_set(err, TP_ERR_CONFIG, "--hidden-size",
                                   "\"--hidden-size\" %" PRId64
                                   " is not a multiple of \"--num-attention-heads\" %" PRId64
                                   " and \"--kv-channels\" is not set",
                                   h, a));
        m->head_dim = h / a;
    }
    m->num_kv_heads = a;
    if (sl[M_GQA].set)
        TP_TRY(opt_i64(&sl[M_QUERY_GROUPS], 1, 1, MAX_DIM, &m->num_kv_heads, err));
    m->norm = TP_NORM_LAYERNORM;
    if (sl[M_NORM].set) {
        static const char *const norms[] = {"LayerNorm", "RMSNorm", NULL};
        int k;
        TP_TRY(val_choice(&sl[M_NORM], norms, &k, err));
        m->norm = k == 1 ? TP_NORM_RMSNORM : TP_NORM_LAYERNORM;
    }
    m->tie_embeddings = !sl[M_UNTIE].set;
    m->linear_bias = !sl[M_NO_BIAS].set;
    m->qkv_bias = sl[M_QKV_BIAS].set && !m->linear_bias;

    /* ---- sequence and positions ---- */
    if (!sl[M_SEQ].set)
        return missing("--seq-length", err);
    int64_t seq;
    TP_TRY(val_i64(&sl[M_SEQ], 1, MAX_SEQ, &seq, err));
    int64_t max_pos = seq;
    if (sl[M_MAX_POS].set)
        TP_TRY(val_i64(&sl[M_MAX_POS], 1, MAX_SEQ, &max_pos, err));
    else
        assume(im, "--max-position-embeddings not set: taken as --seq-length");
    int pos = 0; /* Megatron's default: learned_absolute */
    if (sl[M_POS_TYPE].set) {
        static const char *const types[] = {"learned_absolute", "rope", "none", "mrope",
                                            "relative", NULL};
        TP_TRY(val_choice(&sl[M_POS_TYPE], types, &pos, err));
        if (pos >= 3) {
            char what[120];
            snprintf(what, sizeof what, "\"--position-embedding-type %s\" uses %s position "
                                        "embeddings",
                     types[pos], pos == 3 ? "multimodal rotary" : "relative");
            return not_modelled(&sl[M_POS_TYPE], what, err);
        }
    }
    if (sl[M_ROTARY].set)
        pos = 1;
    if (pos == 2)
        assume(im, "--position-embedding-type none: counted like rotary positions (no "
                   "parameters)");
    m->pos = pos == 0 ? TP_POS_LEARNED : TP_POS_ROTARY;
    m->max_positions = m->pos == TP_POS_LEARNED ? max_pos : 0;

    /* ---- layout (the vocabulary padding needs TP) ---- */
    int64_t tp, pp, cp, ep;
    TP_TRY(opt_i64(&sl[M_TP], 1, 1, MAX_GPUS, &tp, err));
    TP_TRY(opt_i64(&sl[M_PP], 1, 1, MAX_GPUS, &pp, err));
    TP_TRY(opt_i64(&sl[M_CP], 1, 1, MAX_GPUS, &cp, err));
    TP_TRY(opt_i64(&sl[M_EP], 1, 1, MAX_GPUS, &ep, err));
    if (sl[M_ETP].set) {
        int64_t etp;
        TP_TRY(val_i64(&sl[M_ETP], 1, MAX_GPUS, &etp, err));
        if (etp != tp) {
            char what[160];
            snprintf(what, sizeof what,
                     "\"--expert-tensor-parallel-size %" PRId64
                     "\" shards the experts differently from the dense layers (TP %" PRId64 ")",
                     etp, tp);
            return not_modelled(&sl[M_ETP], what, err);
        }
    }

    /* ---- vocabulary ---- */
    int64_t pad = 0;
    if (sl[M_PADDED_VOCAB].set) {
        TP_TRY(val_i64(&sl[M_PADDED_VOCAB], 1, MAX_VOCAB, &m->vocab, err));
        im->has_vocab = true;
        assume(im, "--padded-vocab-size: used as the vocabulary, without further padding");
    } else if (sl[M_VOCAB].set) {
        TP_TRY(val_i64(&sl[M_VOCAB], 1, MAX_VOCAB, &m->vocab, err));
        im->has_vocab = true;
        int64_t div;
        TP_TRY(opt_i64(&sl[M_MAKE_DIV], 128, 1, MAX_VOCAB, &div, err));
        /* Megatron pads to a multiple of make_vocab_size_divisible_by x TP;
         * when that changes nothing, no padding flag is needed. */
        int64_t multiple = div * tp;
        if (multiple > 1 && m->vocab % multiple != 0)
            pad = multiple;
    }

    /* ---- experts ---- */
    if (sl[M_EXPERTS].set)
        TP_TRY(val_i64(&sl[M_EXPERTS], 0, MAX_EXPERTS, &m->num_experts, err));
    if (m->num_experts > 0) {
        TP_TRY(opt_i64(&sl[M_TOPK], 2, 1, MAX_EXPERTS, &m->topk, err));
        TP_TRY(opt_i64(&sl[M_MOE_FFN], m->ffn_hidden, 1, MAX_FFN, &m->moe_ffn_hidden, err));
        int64_t shared = 0;
        TP_TRY(opt_i64(&sl[M_SHARED], 0, 0, MAX_FFN, &shared, err));
        m->num_shared_experts = shared > 0 ? 1 : 0;
        m->shared_ffn_hidden = shared;
        m->moe_layer_freq = 1;
        if (sl[M_MOE_FREQ].set)
            TP_TRY(moe_freq(&sl[M_MOE_FREQ], L, &m->moe_first_dense, &m->moe_layer_freq, err));
    }

    /* ---- emit: model ---- */
    PUSH(push_i64(im, "--layers", L));
    PUSH(push_i64(im, "--hidden", h));
    PUSH(push_i64(im, "--heads", a));
    PUSH(push_i64(im, "--kv-heads", m->num_kv_heads));
    PUSH(push_i64(im, "--head-dim", m->head_dim));
    PUSH(push_i64(im, "--ffn-hidden", m->ffn_hidden));
    if (im->has_vocab)
        PUSH(push_i64(im, "--vocab", m->vocab));
    PUSH(push_str(im, "--mlp", swiglu ? "swiglu" : "gelu"));
    PUSH(push_str(im, "--norm", m->norm == TP_NORM_RMSNORM ? "rmsnorm" : "layernorm"));
    PUSH(push_flag(im, m->tie_embeddings ? "--tie-embeddings" : "--no-tie-embeddings"));
    PUSH(push_i64(im, "--experts", m->num_experts));
    if (m->num_experts > 0) {
        PUSH(push_i64(im, "--topk", m->topk));
        PUSH(push_i64(im, "--moe-ffn-hidden", m->moe_ffn_hidden));
        PUSH(push_i64(im, "--shared-experts", m->num_shared_experts));
    }

    /* ---- batch ---- */
    PUSH(push_i64(im, "--seq-len", seq));
    if (!sl[M_MB].set)
        return missing("--micro-batch-size", err);
    int64_t mb;
    TP_TRY(val_i64(&sl[M_MB], 1, MAX_BATCH, &mb, err));
    PUSH(push_i64(im, "--micro-batch", mb));
    if (sl[M_GB].set) {
        int64_t gb;
        TP_TRY(val_i64(&sl[M_GB], 1, MAX_BATCH, &gb, err));
        PUSH(push_i64(im, "--global-batch", gb));
    }

    /* ---- parallel layout ---- */
    PUSH(push_i64(im, "--tp", tp));
    PUSH(push_i64(im, "--pp", pp));
    PUSH(push_i64(im, "--cp", cp));
    PUSH(push_i64(im, "--ep", ep));
    int64_t vpp = 1, first = 0, last = 0;
    if (sl[M_FIRST].set)
        TP_TRY(val_i64(&sl[M_FIRST], 1, MAX_LAYERS, &first, err));
    if (sl[M_LAST].set)
        TP_TRY(val_i64(&sl[M_LAST], 1, MAX_LAYERS, &last, err));
    if (sl[M_VPP_LAYERS].set && sl[M_VPP_STAGES].set)
        return at(err, sl[M_VPP_STAGES].flag,
                  tp_error_set(err, TP_ERR_CONFIG, "--num-virtual-stages-per-pipeline-rank",
                               "\"--num-layers-per-virtual-pipeline-stage\" and "
                               "\"--num-virtual-stages-per-pipeline-rank\" cannot both be set"));
    if (sl[M_VPP_LAYERS].set) {
        int64_t per;
        TP_TRY(val_i64(&sl[M_VPP_LAYERS], 1, MAX_LAYERS, &per, err));
        if (first || last)
            return at(err, sl[M_VPP_LAYERS].flag,
                      tp_error_set(err, TP_ERR_CONFIG, "--num-layers-per-virtual-pipeline-stage",
                                   "an uneven pipeline split needs "
                                   "\"--num-virtual-stages-per-pipeline-rank\" instead of "
                                   "\"--num-layers-per-virtual-pipeline-stage\""));
        if (L % pp != 0 || (L / pp) % per != 0)
            return at(err, sl[M_VPP_LAYERS].flag,
                      tp_error_set(err, TP_ERR_CONFIG, "--num-layers-per-virtual-pipeline-stage",
                                   "%" PRId64 " layers per pipeline stage are not a multiple of "
                                   "\"--num-layers-per-virtual-pipeline-stage\" %" PRId64,
                                   L / pp, per));
        vpp = (L / pp) / per;
    } else if (sl[M_VPP_STAGES].set) {
        TP_TRY(val_i64(&sl[M_VPP_STAGES], 1, MAX_LAYERS, &vpp, err));
    }
    if (vpp > 1)
        PUSH(push_i64(im, "--vpp", vpp));
    PUSH(push_flag(im, sl[M_SP].set && tp > 1 ? "--sp" : "--no-sp"));
    PUSH(push_str(im, "--schedule", vpp > 1 ? "interleaved" : "1f1b"));
    if (first)
        PUSH(push_i64(im, "--first-stage-layers", first));
    if (last)
        PUSH(push_i64(im, "--last-stage-layers", last));

    /* ---- ZeRO ---- */
    int zero = sl[M_DISTOPT].set ? 1 : 0;
    if (sl[M_MFSDP].set) {
        static const char *const strat[] = {"no_shard", "optim", "optim_grads",
                                            "optim_grads_params", NULL};
        int k = 0;
        if (sl[M_DP_SHARD].set)
            TP_TRY(val_choice(&sl[M_DP_SHARD], strat, &k, err));
        if (k > zero)
            zero = k;
    }
    if (sl[M_FSDP2].set)
        zero = sl[M_FSDP2_NORESHARD].set ? 2 : 3;
    PUSH(push_i64(im, "--zero", zero));

    /* ---- recomputation ---- */
    const char *recompute = "none";
    int64_t every = 1;
    int gran = -1; /* 0 full, 1 selective */
    if (sl[M_RECOMP_GRAN].set) {
        static const char *const g[] = {"full", "selective", NULL};
        TP_TRY(val_choice(&sl[M_RECOMP_GRAN], g, &gran, err));
    }
    if (sl[M_RECOMP_ACT].set)
        gran = 1; /* Megatron: --recompute-activations sets selective */
    if (gran == 1) {
        if (sl[M_RECOMP_METHOD].set)
            return at(err, sl[M_RECOMP_METHOD].flag,
                      tp_error_set(err, TP_ERR_CONFIG, "--recompute-method",
                                   "\"--recompute-method\" does not apply to selective "
                                   "recomputation"));
        const slot *mods = &sl[M_RECOMP_MODULES];
        if (mods->set && !(mods->nv == 1 && strcmp(mods->v[0], "core_attn") == 0) && mods->nv > 0) {
            char what[200] = "";
            size_t len = (size_t)snprintf(what, sizeof what, "\"--recompute-modules");
            for (int i = 0; i < mods->nv && len < sizeof what; i++)
                len += (size_t)snprintf(what + len, sizeof what - len, " %s", mods->v[i]);
            if (len < sizeof what)
                snprintf(what + len, sizeof what - len,
                         "\" recomputes more than the attention core (core_attn)");
            return not_modelled(mods, what, err);
        }
        recompute = "selective";
    } else if (gran == 0) {
        if (!sl[M_RECOMP_METHOD].set)
            return at(err, sl[M_RECOMP_GRAN].flag,
                      tp_error_set(err, TP_ERR_CONFIG, "--recompute-granularity",
                                   "\"--recompute-granularity full\" needs "
                                   "\"--recompute-method uniform\""));
        static const char *const meth[] = {"uniform", "block", NULL};
        int k;
        TP_TRY(val_choice(&sl[M_RECOMP_METHOD], meth, &k, err));
        if (k == 1)
            return not_modelled(&sl[M_RECOMP_METHOD],
                                "\"--recompute-method block\" recomputes only some layers of "
                                "each stage",
                                err);
        if (!sl[M_RECOMP_NUM].set)
            assume(im, "--recompute-num-layers not set: one layer per checkpoint");
        TP_TRY(opt_i64(&sl[M_RECOMP_NUM], 1, 1, MAX_LAYERS, &every, err));
        recompute = "full";
    }
    PUSH(push_str(im, "--recompute", recompute));
    if (strcmp(recompute, "full") == 0)
        PUSH(push_i64(im, "--recompute-every", every));

    /* ---- precision ---- */
    if (sl[M_BF16].set && sl[M_FP16].set)
        return at(err, sl[M_FP16].flag,
                  tp_error_set(err, TP_ERR_CONFIG, "--fp16",
                               "\"--bf16\" and \"--fp16\" cannot both be set"));
    const char *prec = sl[M_FP16].set ? "fp16" : "bf16";
    if (sl[M_FP8].set) {
        static const char *const f8[] = {"e4m3", "hybrid", NULL};
        int k;
        TP_TRY(val_choice(&sl[M_FP8], f8, &k, err));
        prec = "fp8";
    } else if (!sl[M_BF16].set && !sl[M_FP16].set) {
        return tp_error_set(err, TP_ERR_CONFIG, "--bf16",
                            "the arguments train in fp32 (neither \"--bf16\" nor \"--fp16\"); "
                            "trainplan models 16-bit mixed precision");
    }
    PUSH(push_str(im, "--precision", prec));
    const char *grad;
    bool fp16 = strcmp(prec, "fp16") == 0;
    if (fp16)
        grad = sl[M_ACC_FP32].set ? "fp32" : "bf16"; /* 16-bit gradients */
    else
        grad = sl[M_GRAD_BF16].set ? "bf16" : "fp32";

    /* ---- optimizer ---- */
    const char *opt = "adamw";
    if (sl[M_OPTIMIZER].set) {
        static const char *const opts[] = {"adam", "sgd", "muon", "dist_muon", NULL};
        int k;
        TP_TRY(val_choice(&sl[M_OPTIMIZER], opts, &k, err));
        if (k >= 2)
            return not_modelled(&sl[M_OPTIMIZER], "\"--optimizer muon\" keeps Muon state", err);
        if (k == 1) {
            double mom;
            if (sl[M_SGD_MOM].set)
                TP_TRY(val_f64(&sl[M_SGD_MOM], 0.0, 1e6, &mom, err));
            else
                mom = 0.9;
            opt = mom > 0.0 ? "sgd-momentum" : "sgd";
        }
    }
    if (sl[M_PREC_AWARE].set) {
        int ea = 0, eas = 0, mg = 0, mpar = 0;
        if (sl[M_EXP_AVG].set)
            TP_TRY(val_choice(&sl[M_EXP_AVG], dtype_names, &ea, err));
        if (sl[M_EXP_AVG_SQ].set)
            TP_TRY(val_choice(&sl[M_EXP_AVG_SQ], dtype_names, &eas, err));
        if (sl[M_MAIN_GRADS].set)
            TP_TRY(val_choice(&sl[M_MAIN_GRADS], dtype_names, &mg, err));
        if (sl[M_MAIN_PARAMS].set)
            TP_TRY(val_choice(&sl[M_MAIN_PARAMS], dtype_names, &mpar, err));
        if (mpar != 0)
            return not_modelled(&sl[M_MAIN_PARAMS],
                                "\"--main-params-dtype\" keeps 16-bit master weights", err);
        int bytes_a = ea == 0 ? 4 : ea == 3 ? 1 : 2, bytes_b = eas == 0 ? 4 : eas == 3 ? 1 : 2;
        if (bytes_a != bytes_b)
            return not_modelled(&sl[M_EXP_AVG_SQ],
                                "different \"--exp-avg-dtype\" and \"--exp-avg-sq-dtype\" sizes",
                                err);
        if (strcmp(opt, "adamw") == 0)
            opt = bytes_a == 4 ? "adamw" : bytes_a == 2 ? "adamw-bf16" : "adamw-8bit";
        if (bytes_a == 1)
            assume(im, "fp8 optimizer moments: counted as 8-bit moments (same bytes)");
        if (mg == 1 || mg == 2)
            grad = "bf16";
    } else {
        if (sl[M_EXP_AVG].set)
            list_add(im->ignored, sizeof im->ignored, "--exp-avg-dtype");
        if (sl[M_EXP_AVG_SQ].set)
            list_add(im->ignored, sizeof im->ignored, "--exp-avg-sq-dtype");
        if (sl[M_MAIN_GRADS].set)
            list_add(im->ignored, sizeof im->ignored, "--main-grads-dtype");
        if (sl[M_MAIN_PARAMS].set)
            list_add(im->ignored, sizeof im->ignored, "--main-params-dtype");
    }
    PUSH(push_str(im, "--grad-dtype", grad));
    PUSH(push_str(im, "--optimizer", opt));

    /* ---- dropout, attention, padding ---- */
    double pa = 0.1, ph = 0.1; /* Megatron's defaults */
    if (sl[M_ATT_DROP].set)
        TP_TRY(val_f64(&sl[M_ATT_DROP], 0.0, 1.0, &pa, err));
    if (sl[M_HID_DROP].set)
        TP_TRY(val_f64(&sl[M_HID_DROP], 0.0, 1.0, &ph, err));
    if (pa > 0.0 || ph > 0.0)
        PUSH(push_flag(im, "--dropout"));
    bool flash = true;
    if (sl[M_ATT_BACKEND].set) {
        static const char *const be[] = {"flash", "fused", "auto", "unfused", "local", NULL};
        int k;
        TP_TRY(val_choice(&sl[M_ATT_BACKEND], be, &k, err));
        flash = k <= 2;
    }
    if (sl[M_USE_FLASH].set)
        flash = true;
    if (!flash)
        PUSH(push_flag(im, "--no-flash-attn"));
    if (pad > 1)
        PUSH(push_i64(im, "--pad-vocab", pad));
    return TP_OK;
}

tp_status tp_io_import_megatron(const char *text, const char *origin, tp_import *out,
                                tp_error *err)
{
    memset(out, 0, sizeof *out);
    out->kind = TP_IMPORT_MEGATRON;
    if (!text)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "", "no Megatron-LM arguments");
    words ws = {0};
    tp_status st = split_words(text, &ws, err);
    size_t start = 0;
    /* leading VAR=value environment assignments */
    while (st == TP_OK && start < ws.n && is_env_assignment(ws.w[start].s)) {
        char nm[96];
        snprintf(nm, sizeof nm, "%.*s (environment)", (int)strcspn(ws.w[start].s, "="),
                 ws.w[start].s);
        list_add(out->ignored, sizeof out->ignored, nm);
        start++;
    }
    if (st == TP_OK)
        st = scan_launcher(&ws, &start, out, err);
    slot *slots = NULL;
    if (st == TP_OK) {
        slots = calloc(M_COUNT, sizeof *slots);
        if (!slots)
            st = tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading the arguments");
    }
    if (st == TP_OK)
        st = scan_args(&ws, start, slots, out, err);
    if (st == TP_OK)
        st = interpret(slots, origin, out, err);
    free(slots);
    words_free(&ws);
    return st;
}

/* ------------------------------------------------------------------ */
/* DeepSpeed                                                            */
/* ------------------------------------------------------------------ */

typedef enum dsk { K_IGNORE, K_APPROX, K_OBJ } dsk;

/* "a.b.c" into buf for err->path and lists. */
static const char *ds_path(char *buf, size_t n, const char *parent, const char *key)
{
    int w = (parent && *parent) ? snprintf(buf, n, "%s.%s", parent, key)
                                : snprintf(buf, n, "%s", key);
    if (w < 0)
        buf[0] = '\0'; /* a longer path is cut; it only labels messages */
    return buf;
}

/* "\"PATH\" WHAT" for a value of the wrong type or range. */
static tp_status ds_err(tp_error *err, const char *path, const char *what)
{
    return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" %s", path, what);
}

static tp_status ds_not_modelled(tp_error *err, const char *path, const char *what)
{
    return tp_error_set(err, TP_ERR_CONFIG, path,
                        "\"%s\" %s, which changes memory or time in a way trainplan does not "
                        "model",
                        path, what);
}

static tp_status ds_unknown(tp_error *err, const char *path)
{
    return tp_error_set(err, TP_ERR_CONFIG, path,
                        "unknown DeepSpeed config key \"%s\": trainplan cannot tell whether it "
                        "changes memory or time",
                        path);
}

/* A positive integer, or "auto" (0). */
static tp_status ds_count(json_t *v, const char *path, int64_t max, int64_t *out, tp_import *im,
                          tp_error *err)
{
    if (json_is_string(v) && strcmp(json_string_value(v), "auto") == 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s is \"auto\": taken from the trainplan flags", path);
        assume(im, msg);
        *out = 0;
        return TP_OK;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > max)
        return tp_error_set(err, TP_ERR_CONFIG, path,
                            "\"%s\" must be a positive integer or \"auto\"", path);
    *out = (int64_t)json_integer_value(v);
    return TP_OK;
}

/* true/false, or "auto" (-1). */
static tp_status ds_bool(json_t *v, const char *path, int *out, tp_error *err)
{
    if (json_is_boolean(v)) {
        *out = json_is_true(v) ? 1 : 0;
        return TP_OK;
    }
    if (json_is_string(v) && strcmp(json_string_value(v), "auto") == 0) {
        *out = -1;
        return TP_OK;
    }
    return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" must be true, false or \"auto\"", path);
}

/* A switch that is harmless when false and not modelled when true. */
static tp_status ds_reject_if_true(json_t *v, const char *path, const char *what, tp_error *err)
{
    int b = 0;
    tp_status st = ds_bool(v, path, &b, err);
    if (st != TP_OK)
        return st;
    return b == 1 ? ds_not_modelled(err, path, what) : TP_OK;
}

static bool key_in(const char *key, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(key, list[i]) == 0)
            return true;
    return false;
}

/* Classify the remaining keys of an object: approximated, ignored, or unknown. */
static tp_status ds_rest(const char *path, const char *key, const char *const *approx,
                         const char *const *ignore, tp_import *im, tp_error *err)
{
    if (approx && key_in(key, approx)) {
        list_add(im->approximated, sizeof im->approximated, path);
        return TP_OK;
    }
    if (ignore && key_in(key, ignore)) {
        list_add(im->ignored, sizeof im->ignored, path);
        return TP_OK;
    }
    return ds_unknown(err, path);
}

static tp_status ds_expect_object(json_t *v, const char *path, tp_error *err)
{
    if (!json_is_object(v))
        return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" must be an object", path);
    return TP_OK;
}

/* offload_optimizer / offload_param: allowed only with device "none". */
static tp_status ds_offload(json_t *v, const char *path, tp_import *im, tp_error *err)
{
    if (json_is_null(v))
        return TP_OK;
    TP_TRY(ds_expect_object(v, path, err));
    const char *key;
    json_t *x;
    char p[128];
    json_object_foreach(v, key, x) {
        ds_path(p, sizeof p, path, key);
        if (strcmp(key, "device") == 0) {
            if (!json_is_string(x))
                return ds_err(err, p, "must be \"none\", \"cpu\" or \"nvme\"");
            const char *d = json_string_value(x);
            if (strcmp(d, "none") != 0) {
                char what[96];
                snprintf(what, sizeof what, "\"%s\" offloads to the %s", d,
                         strcmp(d, "nvme") == 0 ? "NVMe drive" : "CPU");
                return ds_not_modelled(err, path, what);
            }
        } else {
            list_add(im->ignored, sizeof im->ignored, p);
        }
    }
    return TP_OK;
}

static tp_status ds_zero(json_t *v, tp_import *im, int *stage, tp_error *err)
{
    static const char *const approx[] = {
        "overlap_comm", "contiguous_gradients", "reduce_bucket_size", "allgather_bucket_size",
        "allgather_partitions", "reduce_scatter", "round_robin_gradients",
        "stage3_prefetch_bucket_size", "stage3_param_persistence_threshold",
        "stage3_max_live_parameters", "stage3_max_reuse_distance", "sub_group_size",
        "memory_efficient_linear", "use_multi_rank_bucket_allreduce",
        "mics_hierarchical_params_gather", "prefetch_bucket_size", "param_persistence_threshold",
        "max_live_parameters", "max_reuse_distance", NULL};
    static const char *const ignore[] = {
        "stage3_gather_16bit_weights_on_model_save", "gather_16bit_weights_on_model_save",
        "stage3_gather_fp16_weights_on_model_save", "elastic_checkpoint",
        "load_from_fp32_weights", "ignore_unused_parameters", "legacy_stage1",
        "log_trace_cache_warnings", "cpu_offload_use_pin_memory", NULL};
    TP_TRY(ds_expect_object(v, "zero_optimization", err));
    const char *key;
    json_t *x;
    char p[128];
    json_object_foreach(v, key, x) {
        ds_path(p, sizeof p, "zero_optimization", key);
        if (strcmp(key, "stage") == 0) {
            if (json_is_string(x) && strcmp(json_string_value(x), "auto") == 0) {
                assume(im, "zero_optimization.stage is \"auto\": taken from the trainplan flags");
                *stage = -1;
                continue;
            }
            if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > 3)
                return ds_err(err, p, "must be 0, 1, 2 or 3");
            *stage = (int)json_integer_value(x);
        } else if (strcmp(key, "offload_optimizer") == 0 || strcmp(key, "offload_param") == 0) {
            TP_TRY(ds_offload(x, p, im, err));
        } else if (strcmp(key, "cpu_offload") == 0 || strcmp(key, "cpu_offload_params") == 0) {
            TP_TRY(ds_reject_if_true(x, p, "offloads to the CPU", err));
        } else if (strcmp(key, "zero_quantized_weights") == 0 ||
                   strcmp(key, "zero_quantized_gradients") == 0 ||
                   strcmp(key, "zero_quantized_nontrainable_weights") == 0) {
            TP_TRY(ds_reject_if_true(x, p, "quantises ZeRO communication (ZeRO++)", err));
        } else if (strcmp(key, "zero_hpz_partition_size") == 0) {
            if (!json_is_integer(x))
                return ds_err(err, p, "must be an integer");
            if (json_integer_value(x) > 1)
                return ds_not_modelled(err, p, "keeps a secondary weight partition (ZeRO++ hpZ)");
        } else if (strcmp(key, "mics_shard_size") == 0) {
            if (!json_is_integer(x))
                return ds_err(err, p, "must be an integer");
            if (json_integer_value(x) > 0)
                return ds_not_modelled(err, p, "shards over sub-groups (MiCS)");
        } else {
            TP_TRY(ds_rest(p, key, approx, ignore, im, err));
        }
    }
    return TP_OK;
}

/* bf16 / fp16 sections: *enabled is 1, 0, or -1 ("auto" or absent). */
static tp_status ds_half(json_t *v, const char *name, tp_import *im, int *enabled, tp_error *err)
{
    static const char *const fp16_ignore[] = {"loss_scale", "initial_scale_power",
                                              "loss_scale_window", "hysteresis",
                                              "consecutive_hysteresis", "min_loss_scale", NULL};
    static const char *const approx[] = {"auto_cast", "immediate_grad_update", NULL};
    TP_TRY(ds_expect_object(v, name, err));
    const char *key;
    json_t *x;
    char p[128];
    json_object_foreach(v, key, x) {
        ds_path(p, sizeof p, name, key);
        if (strcmp(key, "enabled") == 0) {
            TP_TRY(ds_bool(x, p, enabled, err));
            if (*enabled < 0) {
                char msg[256];
                snprintf(msg, sizeof msg, "%s is \"auto\": precision taken from the trainplan "
                                          "flags",
                         p);
                assume(im, msg);
            }
        } else if (strcmp(key, "fp16_master_weights_and_grads") == 0) {
            TP_TRY(ds_reject_if_true(x, p, "keeps 16-bit master weights and gradients", err));
        } else {
            TP_TRY(ds_rest(p, key, approx, strcmp(name, "fp16") == 0 ? fp16_ignore : NULL, im,
                           err));
        }
    }
    return TP_OK;
}

static tp_status ds_optimizer(json_t *v, tp_import *im, const char **opt, tp_error *err)
{
    TP_TRY(ds_expect_object(v, "optimizer", err));
    const char *key;
    json_t *x;
    char p[128];
    const char *type = NULL;
    double momentum = 0.0;
    json_object_foreach(v, key, x) {
        ds_path(p, sizeof p, "optimizer", key);
        if (strcmp(key, "type") == 0) {
            if (!json_is_string(x))
                return ds_err(err, p, "must be a string");
            type = json_string_value(x);
        } else if (strcmp(key, "params") == 0) {
            if (!json_is_object(x))
                return ds_err(err, p, "must be an object");
            json_t *mom = json_object_get(x, "momentum");
            if (json_is_number(mom))
                momentum = json_number_value(mom);
            list_add(im->ignored, sizeof im->ignored, p);
        } else {
            return ds_unknown(err, p);
        }
    }
    if (!type)
        return tp_error_set(err, TP_ERR_CONFIG, "optimizer.type",
                            "\"optimizer\" has no \"type\"");
    static const char *const adam[] = {"Adam", "AdamW", "adam", "adamw", "FusedAdam",
                                       "CPUAdam", "DeepSpeedCPUAdam", NULL};
    if (strcmp(type, "CPUAdam") == 0 || strcmp(type, "DeepSpeedCPUAdam") == 0)
        return ds_not_modelled(err, "optimizer.type", "runs the optimizer on the CPU");
    if (key_in(type, adam)) {
        *opt = "adamw";
    } else if (strcmp(type, "SGD") == 0 || strcmp(type, "sgd") == 0) {
        *opt = momentum > 0.0 ? "sgd-momentum" : "sgd";
    } else {
        char what[128];
        snprintf(what, sizeof what, "\"%s\" keeps optimizer state other than AdamW's or SGD's",
                 type);
        return ds_not_modelled(err, "optimizer.type", what);
    }
    return TP_OK;
}

static tp_status ds_checkpointing(json_t *v, tp_import *im, tp_error *err)
{
    static const char *const approx[] = {"contiguous_memory_optimization",
                                         "synchronize_checkpoint_boundary", NULL};
    static const char *const ignore[] = {"number_checkpoints", "profile", NULL};
    TP_TRY(ds_expect_object(v, "activation_checkpointing", err));
    const char *key;
    json_t *x;
    char p[128];
    json_object_foreach(v, key, x) {
        ds_path(p, sizeof p, "activation_checkpointing", key);
        if (strcmp(key, "partition_activations") == 0)
            TP_TRY(ds_reject_if_true(x, p, "splits the checkpointed activations across GPUs", err));
        else if (strcmp(key, "cpu_checkpointing") == 0)
            TP_TRY(ds_reject_if_true(x, p, "moves the checkpointed activations to the CPU", err));
        else
            TP_TRY(ds_rest(p, key, approx, ignore, im, err));
    }
    return TP_OK;
}

static tp_status ds_enabled_reject(json_t *v, const char *name, const char *what, tp_import *im,
                                   tp_error *err)
{
    TP_TRY(ds_expect_object(v, name, err));
    json_t *en = json_object_get(v, "enabled");
    char p[128];
    ds_path(p, sizeof p, name, "enabled");
    if (en)
        TP_TRY(ds_reject_if_true(en, p, what, err));
    list_add(im->ignored, sizeof im->ignored, name);
    return TP_OK;
}

static tp_status ds_walk(json_t *root, tp_import *im, tp_error *err)
{
    static const char *const ignore[] = {
        "gradient_clipping", "steps_per_print", "wall_clock_breakdown", "dump_state",
        "memory_breakdown", "tensorboard", "wandb", "csv_monitor", "comet", "flops_profiler",
        "comms_logger", "zero_allow_untested_optimizer", "zero_force_ds_cpu_optimizer",
        "checkpoint", "aio", "scheduler", "load_universal_checkpoint", "monitor_config", NULL};
    static const char *const approx[] = {"prescale_gradients", "gradient_predivide_factor",
                                         "communication_data_type", "sparse_gradients",
                                         "disable_allgather", "pipeline", "timers", NULL};
    if (!json_is_object(root))
        return tp_error_set(err, TP_ERR_CONFIG, "", "a DeepSpeed config must be a JSON object");
    int stage = -1, bf16 = -1, fp16 = -1;
    const char *opt = NULL, *grad = NULL;
    bool ckpt = false;
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (strcmp(key, "train_batch_size") == 0) {
            TP_TRY(ds_count(v, key, MAX_BATCH, &im->ds_train_batch, im, err));
        } else if (strcmp(key, "train_micro_batch_size_per_gpu") == 0) {
            TP_TRY(ds_count(v, key, MAX_BATCH, &im->ds_micro_batch, im, err));
        } else if (strcmp(key, "gradient_accumulation_steps") == 0) {
            TP_TRY(ds_count(v, key, MAX_BATCH, &im->ds_grad_accum, im, err));
        } else if (strcmp(key, "zero_optimization") == 0) {
            TP_TRY(ds_zero(v, im, &stage, err));
            if (stage < 0 && !json_object_get(v, "stage"))
                stage = 0;
        } else if (strcmp(key, "bf16") == 0) {
            TP_TRY(ds_half(v, "bf16", im, &bf16, err));
        } else if (strcmp(key, "fp16") == 0) {
            TP_TRY(ds_half(v, "fp16", im, &fp16, err));
        } else if (strcmp(key, "amp") == 0) {
            TP_TRY(ds_enabled_reject(v, "amp", "trains with NVIDIA Apex AMP", im, err));
        } else if (strcmp(key, "optimizer") == 0) {
            TP_TRY(ds_optimizer(v, im, &opt, err));
        } else if (strcmp(key, "activation_checkpointing") == 0) {
            TP_TRY(ds_checkpointing(v, im, err));
            ckpt = true;
        } else if (strcmp(key, "data_types") == 0) {
            TP_TRY(ds_expect_object(v, key, err));
            const char *k2;
            json_t *x;
            char p[128];
            json_object_foreach(v, k2, x) {
                ds_path(p, sizeof p, key, k2);
                if (strcmp(k2, "grad_accum_dtype") != 0)
                    return ds_unknown(err, p);
                static const char *const dts[] = {"fp32", "bf16", "fp16", NULL};
                if (!json_is_string(x) || !key_in(json_string_value(x), dts))
                    return ds_err(err, p, "must be \"fp32\", \"bf16\" or \"fp16\"");
                grad = strcmp(json_string_value(x), "fp32") == 0 ? "fp32" : "bf16";
            }
        } else if (strcmp(key, "sparse_attention") == 0) {
            return ds_not_modelled(err, key, "uses sparse attention");
        } else if (strcmp(key, "compression_training") == 0) {
            return ds_not_modelled(err, key, "compresses the model while training");
        } else if (strcmp(key, "elasticity") == 0) {
            TP_TRY(ds_enabled_reject(v, key, "changes the batch with the number of GPUs", im, err));
        } else if (strcmp(key, "curriculum_learning") == 0 || strcmp(key, "data_efficiency") == 0) {
            TP_TRY(ds_enabled_reject(v, key, "changes the sequence length while training", im,
                                     err));
        } else {
            TP_TRY(ds_rest(key, key, approx, ignore, im, err));
        }
    }
    if (bf16 == 1 && fp16 == 1)
        return tp_error_set(err, TP_ERR_CONFIG, "fp16.enabled",
                            "\"bf16.enabled\" and \"fp16.enabled\" cannot both be true");
    if (bf16 == 0 && fp16 <= 0 && json_object_get(root, "fp16") == NULL)
        return tp_error_set(err, TP_ERR_CONFIG, "bf16.enabled",
                            "the config trains in fp32 (\"bf16.enabled\" is false and there is "
                            "no \"fp16\"); trainplan models 16-bit mixed precision");
    if (bf16 == 0 && fp16 == 0)
        return tp_error_set(err, TP_ERR_CONFIG, "fp16.enabled",
                            "the config trains in fp32 (\"bf16\" and \"fp16\" are disabled); "
                            "trainplan models 16-bit mixed precision");

    if (im->ds_micro_batch > 0)
        PUSH(push_i64(im, "--micro-batch", im->ds_micro_batch));
    if (im->ds_train_batch > 0)
        PUSH(push_i64(im, "--global-batch", im->ds_train_batch));
    if (stage >= 0)
        PUSH(push_i64(im, "--zero", stage));
    else if (!json_object_get(root, "zero_optimization"))
        PUSH(push_i64(im, "--zero", 0));
    if (bf16 == 1)
        PUSH(push_str(im, "--precision", "bf16"));
    else if (fp16 == 1)
        PUSH(push_str(im, "--precision", "fp16"));
    else if (bf16 < 0 && fp16 < 0)
        assume(im, "no bf16/fp16 section: precision taken from the trainplan flags");
    if (grad)
        PUSH(push_str(im, "--grad-dtype", grad));
    else
        assume(im, "no data_types.grad_accum_dtype: gradient type taken from the trainplan flags");
    if (opt)
        PUSH(push_str(im, "--optimizer", opt));
    else
        assume(im, "no optimizer section (the script builds it): optimizer taken from the "
                   "trainplan flags");
    if (ckpt) {
        PUSH(push_str(im, "--recompute", "full"));
        assume(im, "activation_checkpointing present: the model is assumed to checkpoint every "
                   "layer (--recompute full)");
    }
    return TP_OK;
}

tp_status tp_io_import_deepspeed(const char *text, const char *origin, tp_import *out,
                                 tp_error *err)
{
    (void)origin; /* the DeepSpeed config does not name the model */
    memset(out, 0, sizeof *out);
    out->kind = TP_IMPORT_DEEPSPEED;
    if (!text)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "", "no DeepSpeed config");
    json_error_t je;
    bool oom = false;
    json_t *root = tp_io__json_loads(text, strlen(text), JSON_REJECT_DUPLICATES, &je, &oom);
    if (oom)
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading the DeepSpeed config");
    if (!root) {
        tp_error_set(err, TP_ERR_PARSE, "", "%s", je.text);
        if (err) {
            err->line = je.line;
            err->column = je.column;
        }
        return TP_ERR_PARSE;
    }
    tp_status st = ds_walk(root, out, err);
    json_decref(root);
    return st;
}

/* ------------------------------------------------------------------ */
/* trainplan's own JSON (estimate --json, search --json)               */
/* ------------------------------------------------------------------ */

/* The first object (depth-first) holding "model", "layout" and "training". */
static json_t *find_result(json_t *j, int depth)
{
    if (depth > 4 || !j)
        return NULL;
    if (json_is_object(j)) {
        if (json_is_object(json_object_get(j, "model")) &&
            json_is_object(json_object_get(j, "layout")) &&
            json_is_object(json_object_get(j, "training")))
            return j;
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v) {
            json_t *r = find_result(v, depth + 1);
            if (r)
                return r;
        }
        return NULL;
    }
    if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v) {
            json_t *r = find_result(v, depth + 1);
            if (r)
                return r;
        }
    }
    return NULL;
}

typedef struct tpj {
    json_t *root; /* the result object */
    tp_import *im;
    tp_error *err;
    int64_t preset_gpus_per_node; /* of the GPU preset, 0 when not a preset */
} tpj;

static json_t *tj_get(tpj *t, const char *sec, const char *key, char *path, size_t n)
{
    snprintf(path, n, "%s.%s", sec, key);
    json_t *o = json_object_get(t->root, sec);
    return o ? json_object_get(o, key) : NULL;
}

static tp_status tj_int(tpj *t, const char *sec, const char *key, int64_t min, int64_t *out)
{
    char p[96];
    json_t *v = tj_get(t, sec, key, p, sizeof p);
    if (!json_is_integer(v) || json_integer_value(v) < min)
        return tp_error_set(t->err, TP_ERR_CONFIG, p, "\"%s\" must be an integer >= %" PRId64, p,
                            min);
    *out = (int64_t)json_integer_value(v);
    return TP_OK;
}

static tp_status tj_num(tpj *t, const char *sec, const char *key, double *out)
{
    char p[96];
    json_t *v = tj_get(t, sec, key, p, sizeof p);
    if (!json_is_number(v))
        return tp_error_set(t->err, TP_ERR_CONFIG, p, "\"%s\" must be a number", p);
    double d = json_number_value(v);
    if (fpclassify(d) == FP_SUBNORMAL) /* never a silent 0 or inf downstream (issue 14) */
        return tp_error_set(t->err, TP_ERR_CONFIG, p,
                            "\"%s\": %g is too small to compute with (0, or a magnitude of at "
                            "least %g)",
                            p, d, DBL_MIN);
    *out = d;
    return TP_OK;
}

static tp_status tj_str(tpj *t, const char *sec, const char *key, const char **out)
{
    char p[96];
    json_t *v = tj_get(t, sec, key, p, sizeof p);
    if (!json_is_string(v))
        return tp_error_set(t->err, TP_ERR_CONFIG, p, "\"%s\" must be a string", p);
    *out = json_string_value(v);
    return TP_OK;
}

static tp_status tj_bool(tpj *t, const char *sec, const char *key, bool *out)
{
    char p[96];
    json_t *v = tj_get(t, sec, key, p, sizeof p);
    if (!json_is_boolean(v))
        return tp_error_set(t->err, TP_ERR_CONFIG, p, "\"%s\" must be true or false", p);
    *out = json_is_true(v);
    return TP_OK;
}

/* Push "--flag N" from an integer field. */
static tp_status tj_flag_int(tpj *t, const char *sec, const char *key, int64_t min,
                             const char *flag)
{
    int64_t v;
    TP_TRY(tj_int(t, sec, key, min, &v));
    if (!push_i64(t->im, flag, v))
        return full(t->err);
    return TP_OK;
}

static tp_status tj_flag_str(tpj *t, const char *sec, const char *key, const char *flag)
{
    const char *v;
    TP_TRY(tj_str(t, sec, key, &v));
    if (!push_str(t->im, flag, v))
        return full(t->err);
    return TP_OK;
}

static bool push_real(tp_import *im, const char *flag, double v)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    return push_word(im, flag) && push_word(im, buf);
}

/* Differs by more than a relative 1e-12 (the JSON rounds bytes). */
static bool differs(double a, double b)
{
    double s = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) > 1e-12 * (s > 1.0 ? s : 1.0);
}

static tp_status tj_model(tpj *t)
{
    tp_import *im = t->im;
    const char *name, *mlp, *norm, *pos;
    TP_TRY(tj_str(t, "model", "name", &name));
    tp_model preset;
    bool is_preset = tp_io_preset_text(TP_IO_MODEL, name) != NULL &&
                     tp_io_model_load(name, &preset, NULL) == TP_OK;
    if (is_preset) {
        if (!push_str(im, "--model", name))
            return full(t->err);
    } else {
        char msg[320];
        snprintf(msg, sizeof msg,
                 "model \"%.60s\" is not a preset: its shape comes from the file, details the "
                 "file does not hold (QKV bias, MoE layer pattern) from the default model",
                 name);
        assume(im, msg);
    }
    TP_TRY(tj_flag_int(t, "model", "layers", 1, "--layers"));
    TP_TRY(tj_flag_int(t, "model", "hidden", 1, "--hidden"));
    TP_TRY(tj_flag_int(t, "model", "heads", 1, "--heads"));
    TP_TRY(tj_flag_int(t, "model", "kv_heads", 1, "--kv-heads"));
    TP_TRY(tj_flag_int(t, "model", "head_dim", 1, "--head-dim"));
    TP_TRY(tj_flag_int(t, "model", "ffn_hidden", 1, "--ffn-hidden"));
    TP_TRY(tj_flag_int(t, "model", "vocab", 1, "--vocab"));
    TP_TRY(tj_str(t, "model", "mlp", &mlp));
    TP_TRY(tj_str(t, "model", "norm", &norm));
    TP_TRY(tj_str(t, "model", "position", &pos));
    if (!push_str(im, "--mlp", mlp) || !push_str(im, "--norm", norm))
        return full(t->err);
    bool tie, bias;
    TP_TRY(tj_bool(t, "model", "tie_embeddings", &tie));
    TP_TRY(tj_bool(t, "model", "linear_bias", &bias));
    if (!push_flag(im, tie ? "--tie-embeddings" : "--no-tie-embeddings"))
        return full(t->err);
    int64_t experts;
    TP_TRY(tj_int(t, "model", "experts", 0, &experts));
    if (!push_i64(im, "--experts", experts))
        return full(t->err);
    if (experts > 0) {
        TP_TRY(tj_flag_int(t, "model", "topk", 1, "--topk"));
        TP_TRY(tj_flag_int(t, "model", "moe_ffn_hidden", 1, "--moe-ffn-hidden"));
        TP_TRY(tj_flag_int(t, "model", "shared_experts", 0, "--shared-experts"));
    }
    /* fields without flags: applied by tp_io_import_apply */
    im->has_model = true;
    tp_model *m = &im->model;
    if (is_preset)
        *m = preset;
    snprintf(m->name, sizeof m->name, "%s", name);
    m->linear_bias = bias;
    if (strcmp(pos, "rotary") == 0)
        m->pos = TP_POS_ROTARY;
    else if (strcmp(pos, "learned") == 0)
        m->pos = TP_POS_LEARNED;
    else if (strcmp(pos, "alibi") == 0)
        m->pos = TP_POS_ALIBI;
    else
        return tp_error_set(t->err, TP_ERR_CONFIG, "model.position",
                            "\"model.position\" must be rotary, learned or alibi (got \"%s\")",
                            pos);
    im->has_vocab = true;
    return TP_OK;
}

static tp_status tj_gpu(tpj *t)
{
    tp_import *im = t->im;
    const char *name, *prec;
    double peak, cap, price;
    TP_TRY(tj_str(t, "gpu", "name", &name));
    TP_TRY(tj_num(t, "gpu", "peak_flops_per_s", &peak));
    TP_TRY(tj_str(t, "gpu", "peak_precision", &prec));
    TP_TRY(tj_num(t, "gpu", "memory_capacity_bytes", &cap));
    TP_TRY(tj_num(t, "gpu", "price_per_gpu_hour", &price));
    tp_gpu g;
    bool is_preset = tp_io_preset_text(TP_IO_GPU, name) != NULL &&
                     tp_io_gpu_load(name, &g, NULL) == TP_OK;
    if (is_preset) {
        t->preset_gpus_per_node = g.gpus_per_node;
        if (!push_str(im, "--gpu", name))
            return full(t->err);
    } else {
        char msg[320];
        snprintf(msg, sizeof msg,
                 "GPU \"%.60s\" is not a preset: memory, peak and price come from the file, "
                 "bandwidths from the default GPU",
                 name);
        assume(im, msg);
    }
    int p = -1;
    for (int i = 0; i < TP_PREC_COUNT; i++)
        if (strcmp(prec, tp_io_precision_name((tp_precision)i)) == 0)
            p = i;
    if (!is_preset || differs(cap, g.mem_capacity_bytes))
        if (!push_real(im, "--gpu-memory-gb", cap / 1e9))
            return full(t->err);
    if (!is_preset || p < 0 || differs(peak, g.peak_flops_per_s[p]))
        if (!push_real(im, "--peak-tflops", peak / 1e12))
            return full(t->err);
    if (!is_preset || differs(price, g.price_per_gpu_hour))
        if (!push_real(im, "--price", price))
            return full(t->err);
    return TP_OK;
}

static tp_status tj_layout(tpj *t)
{
    tp_import *im = t->im;
    TP_TRY(tj_flag_int(t, "layout", "num_gpus", 1, "--gpus"));
    int64_t gpn;
    TP_TRY(tj_int(t, "layout", "gpus_per_node", 1, &gpn));
    if (gpn != t->preset_gpus_per_node && !push_i64(im, "--gpus-per-node", gpn))
        return full(t->err);
    TP_TRY(tj_flag_int(t, "layout", "tp", 1, "--tp"));
    TP_TRY(tj_flag_int(t, "layout", "pp", 1, "--pp"));
    TP_TRY(tj_flag_int(t, "layout", "cp", 1, "--cp"));
    TP_TRY(tj_flag_int(t, "layout", "ep", 1, "--ep"));
    TP_TRY(tj_flag_int(t, "layout", "vpp", 1, "--vpp"));
    bool sp;
    TP_TRY(tj_bool(t, "layout", "sp", &sp));
    if (!push_flag(im, sp ? "--sp" : "--no-sp"))
        return full(t->err);
    TP_TRY(tj_flag_int(t, "layout", "zero", 0, "--zero"));
    TP_TRY(tj_flag_str(t, "layout", "schedule", "--schedule"));
    TP_TRY(tj_flag_str(t, "layout", "recompute", "--recompute"));
    TP_TRY(tj_flag_int(t, "layout", "recompute_every", 1, "--recompute-every"));
    int64_t first, last;
    TP_TRY(tj_int(t, "layout", "first_stage_layers", 0, &first));
    TP_TRY(tj_int(t, "layout", "last_stage_layers", 0, &last));
    if (first > 0 && !push_i64(im, "--first-stage-layers", first))
        return full(t->err);
    if (last > 0 && !push_i64(im, "--last-stage-layers", last))
        return full(t->err);
    TP_TRY(tj_flag_int(t, "layout", "seq_len", 1, "--seq-len"));
    TP_TRY(tj_flag_int(t, "layout", "micro_batch", 1, "--micro-batch"));
    TP_TRY(tj_flag_int(t, "layout", "global_batch", 1, "--global-batch"));
    im->has_gpus = true;
    return TP_OK;
}

static tp_status tj_training(tpj *t)
{
    tp_import *im = t->im;
    TP_TRY(tj_flag_str(t, "training", "precision", "--precision"));
    TP_TRY(tj_flag_str(t, "training", "grad_dtype", "--grad-dtype"));
    TP_TRY(tj_flag_str(t, "training", "optimizer", "--optimizer"));
    bool master, flash, dropout, fused;
    TP_TRY(tj_bool(t, "training", "master_weights", &master));
    TP_TRY(tj_bool(t, "training", "flash_attn", &flash));
    TP_TRY(tj_bool(t, "training", "dropout", &dropout));
    TP_TRY(tj_bool(t, "training", "fused_ce", &fused));
    if ((!master && !push_flag(im, "--no-master-weights")) ||
        (!flash && !push_flag(im, "--no-flash-attn")) || (dropout && !push_flag(im, "--dropout")) ||
        (fused && !push_flag(im, "--fused-ce")))
        return full(t->err);
    int64_t pad;
    TP_TRY(tj_int(t, "training", "pad_vocab_to", 1, &pad));
    if (pad > 1 && !push_i64(im, "--pad-vocab", pad))
        return full(t->err);
    return TP_OK;
}

static tp_status tj_conventions(tpj *t)
{
    tp_import *im = t->im;
    if (!json_is_object(json_object_get(t->root, "conventions")))
        return TP_OK; /* older files: trainplan's defaults */
    TP_TRY(tj_flag_str(t, "conventions", "attn_flops", "--attn-flops"));
    TP_TRY(tj_flag_str(t, "conventions", "act_model", "--act-model"));
    TP_TRY(tj_flag_str(t, "conventions", "ckpt_model", "--ckpt-model"));
    TP_TRY(tj_flag_str(t, "conventions", "coll_model", "--coll-model"));
    tp_options d;
    tp_options_default(&d);
    double ctx, buf, frag;
    TP_TRY(tj_num(t, "conventions", "cuda_context_bytes", &ctx));
    TP_TRY(tj_num(t, "conventions", "comm_buffer_bytes", &buf));
    TP_TRY(tj_num(t, "conventions", "fragmentation", &frag));
    if (differs(ctx, d.cuda_context_bytes) && !push_real(im, "--cuda-context-gb", ctx / 1e9))
        return full(t->err);
    if (differs(buf, d.comm_buffer_bytes) && !push_real(im, "--comm-buffer-gb", buf / 1e9))
        return full(t->err);
    if (differs(frag, d.fragmentation) && !push_real(im, "--fragmentation", frag))
        return full(t->err);
    return TP_OK;
}

/* A `trainplan plan --json` document: "model", "cluster" and "phases"
 * (each with its layout, sequence, batch and tokens). The first phase is
 * used; its tokens give the step count. The plan does not record the
 * precision or optimizer: they come from the flags (noted). */

/* a x b x c when it is at most MAX_BATCH (all three >= 1), else false. */
static bool ds_batch_product(int64_t a, int64_t b, int64_t c, int64_t *out)
{
    int64_t ab, abc;
    if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc) ||
        abc > MAX_BATCH)
        return false;
    *out = abc;
    return true;
}

static tp_status tj_plan(json_t *doc, tp_import *im, tp_error *err)
{
    json_t *model = json_object_get(doc, "model"), *cl = json_object_get(doc, "cluster");
    json_t *phases = json_object_get(doc, "phases");
    json_t *ph = json_array_get(phases, 0);
    if (!json_is_object(ph) || !json_is_object(json_object_get(ph, "layout")))
        return tp_error_set(err, TP_ERR_CONFIG, "phases",
                            "the plan has no phase with a layout (\"phases[0].layout\")");
    tpj t = {doc, im, err, 0};
    const char *name;
    TP_TRY(tj_str(&t, "model", "name", &name));
    tp_model pre;
    bool is_preset = tp_io_preset_text(TP_IO_MODEL, name) != NULL &&
                     tp_io_model_load(name, &pre, NULL) == TP_OK;
    int64_t L = 0, h = 0, a = 0;
    TP_TRY(tj_int(&t, "model", "num_layers", 1, &L));
    TP_TRY(tj_int(&t, "model", "hidden", 1, &h));
    TP_TRY(tj_int(&t, "model", "num_heads", 1, &a));
    if (is_preset && !push_str(im, "--model", name))
        return full(err);
    if (!is_preset || pre.num_layers != L || pre.hidden != h || pre.num_heads != a) {
        if (!push_i64(im, "--layers", L) || !push_i64(im, "--hidden", h) ||
            !push_i64(im, "--heads", a))
            return full(err);
        assume(im, "the plan's model is not exactly a preset: layers, hidden and heads from the "
                   "plan, the rest of its shape from --model");
    }
    (void)model;
    const char *gpu;
    t.root = doc;
    TP_TRY(tj_str(&t, "cluster", "gpu", &gpu));
    if (!push_str(im, "--gpu", gpu))
        return full(err);
    TP_TRY(tj_flag_int(&t, "cluster", "num_gpus", 1, "--gpus"));
    TP_TRY(tj_flag_int(&t, "cluster", "gpus_per_node", 1, "--gpus-per-node"));
    (void)cl;
    /* the phase: layout, sequence, batch */
    json_t *wrap_obj = json_object();
    if (!wrap_obj || json_object_set(wrap_obj, "layout", json_object_get(ph, "layout")) != 0 ||
        json_object_set(wrap_obj, "phase", ph) != 0) {
        json_decref(wrap_obj);
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading the plan");
    }
    t.root = wrap_obj;
    tp_status st = TP_OK;
    bool sp = false;
    const char *sched = NULL, *rec = NULL;
    if ((st = tj_flag_int(&t, "layout", "tp", 1, "--tp")) == TP_OK &&
        (st = tj_flag_int(&t, "layout", "pp", 1, "--pp")) == TP_OK &&
        (st = tj_flag_int(&t, "layout", "cp", 1, "--cp")) == TP_OK &&
        (st = tj_flag_int(&t, "layout", "ep", 1, "--ep")) == TP_OK &&
        (st = tj_flag_int(&t, "layout", "vpp", 1, "--vpp")) == TP_OK &&
        (st = tj_bool(&t, "layout", "sp", &sp)) == TP_OK &&
        (st = tj_flag_int(&t, "layout", "zero", 0, "--zero")) == TP_OK &&
        (st = tj_str(&t, "layout", "schedule", &sched)) == TP_OK &&
        (st = tj_str(&t, "layout", "recompute", &rec)) == TP_OK &&
        (st = tj_flag_int(&t, "layout", "micro_batch", 1, "--micro-batch")) == TP_OK &&
        (st = tj_flag_int(&t, "phase", "seq_len", 1, "--seq-len")) == TP_OK &&
        (st = tj_flag_int(&t, "phase", "global_batch", 1, "--global-batch")) == TP_OK) {
        if (!push_flag(im, sp ? "--sp" : "--no-sp") || !push_str(im, "--schedule", sched) ||
            !push_str(im, "--recompute", rec))
            st = full(err);
        double tokens = 0.0;
        if (st == TP_OK && tj_num(&t, "phase", "tokens", &tokens) == TP_OK && tokens >= 1.0 &&
            tokens < 9.0e18)
            im->train_tokens = (int64_t)llround(tokens);
    }
    json_decref(wrap_obj);
    if (st != TP_OK)
        return st;
    im->has_gpus = true;
    im->has_vocab = true;
    if (json_array_size(phases) > 1) {
        char msg[160];
        snprintf(msg, sizeof msg, "the plan has %zu phases: the first is exported (its layout, "
                                  "sequence, batch and tokens)",
                 json_array_size(phases));
        assume(im, msg);
    }
    assume(im, "the plan does not record precision, gradients or optimizer: they come from the "
               "flags (trainplan's defaults unless given)");
    return TP_OK;
}

tp_status tp_io_import_trainplan(const char *text, const char *origin, tp_import *out,
                                 tp_error *err)
{
    (void)origin; /* the file names its model */
    memset(out, 0, sizeof *out);
    out->kind = TP_IMPORT_TRAINPLAN;
    if (!text)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "", "no trainplan result");
    json_error_t je;
    bool oom = false;
    json_t *root = tp_io__json_loads(text, strlen(text), 0, &je, &oom);
    if (oom)
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading the trainplan result");
    if (!root) {
        tp_error_set(err, TP_ERR_PARSE, "", "%s", je.text);
        if (err) {
            err->line = je.line;
            err->column = je.column;
        }
        return TP_ERR_PARSE;
    }
    tpj t = {find_result(root, 0), out, err, 0};
    tp_status st;
    if (!t.root && json_is_object(root) && json_is_array(json_object_get(root, "phases")) &&
        json_is_object(json_object_get(root, "cluster")))
        st = tj_plan(root, out, err);
    else if (!t.root)
        st = tp_error_set(err, TP_ERR_CONFIG, "",
                          "no trainplan result in the file (expected the --json output of "
                          "estimate, search or plan)");
    else if ((st = tj_model(&t)) == TP_OK && (st = tj_gpu(&t)) == TP_OK &&
             (st = tj_layout(&t)) == TP_OK && (st = tj_training(&t)) == TP_OK)
        st = tj_conventions(&t);
    json_decref(root);
    return st;
}

/* ------------------------------------------------------------------ */
/* Files and the second step                                            */
/* ------------------------------------------------------------------ */

tp_status tp_io_import_load(tp_import_kind kind, const char *path, tp_import *out, tp_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return tp_error_set(err, TP_ERR_IO, "", "cannot read %s: %s", path, strerror(errno));
    char *buf = malloc(MAX_FILE_BYTES + 1);
    if (!buf) {
        if (f != stdin)
            fclose(f);
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading %s", path);
    }
    size_t n = fread(buf, 1, MAX_FILE_BYTES + 1, f);
    bool bad = ferror(f) != 0;
    if (f != stdin)
        fclose(f);
    if (bad || n > MAX_FILE_BYTES) {
        free(buf);
        return tp_error_set(err, TP_ERR_IO, "", bad ? "cannot read %s" : "%s is larger than 16 MiB",
                            path);
    }
    buf[n] = '\0';
    if (memchr(buf, '\0', n)) {
        free(buf);
        return tp_error_set(err, TP_ERR_IO, "", "%s is not a text file", path);
    }
    tp_status st;
    switch (kind) {
    case TP_IMPORT_MEGATRON: st = tp_io_import_megatron(buf, path, out, err); break;
    case TP_IMPORT_DEEPSPEED: st = tp_io_import_deepspeed(buf, path, out, err); break;
    default: st = tp_io_import_trainplan(buf, path, out, err); break;
    }
    free(buf);
    return st;
}

tp_status tp_io_import_apply(const tp_import *im, const tp_import_user *user, tp_config *c,
                             tp_error *err)
{
    static const tp_import_user none = {0};
    if (!user)
        user = &none;
    if (im->kind == TP_IMPORT_TRAINPLAN) {
        /* the file's model details no flag expresses, unless --model replaced it */
        if (!user->model && im->has_model) {
            memcpy(c->model.name, im->model.name, sizeof c->model.name);
            c->model.pos = im->model.pos;
            c->model.linear_bias = im->model.linear_bias;
        }
        return TP_OK;
    }
    if (im->kind == TP_IMPORT_MEGATRON) {
        if (user->model)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "model",
                                "cannot be combined with --from-megatron: the Megatron "
                                "arguments define the model (change its shape with --layers, "
                                "--hidden, ...)");
        if (!im->has_vocab && !user->vocab)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "vocab",
                                "the Megatron arguments do not give the vocabulary size "
                                "(Megatron-LM reads it from the tokenizer); add --vocab N");
        if (!im->has_gpus && !user->gpus)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "gpus",
                                "the Megatron arguments do not give the number of GPUs (the "
                                "launcher sets it); add --gpus N, or import the whole torchrun "
                                "command with --nnodes and --nproc-per-node");
        tp_model *m = &c->model;
        memcpy(m->name, im->model.name, sizeof m->name);
        m->pos = im->model.pos;
        m->max_positions = im->model.max_positions;
        m->linear_bias = im->model.linear_bias;
        m->qkv_bias = im->model.qkv_bias;
        if (m->num_experts > 0) {
            m->shared_ffn_hidden = m->num_shared_experts > 0 ? im->model.shared_ffn_hidden : 0;
            m->moe_first_dense = im->model.moe_first_dense;
            m->moe_layer_freq = im->model.moe_layer_freq;
        } else {
            m->topk = 0;
            m->moe_ffn_hidden = 0;
            m->num_shared_experts = 0;
            m->shared_ffn_hidden = 0;
            m->moe_first_dense = 0;
            m->moe_layer_freq = 0;
        }
        return TP_OK;
    }

    /* DeepSpeed: train_batch_size = micro x accumulation x DP, the missing
     * one derived as DeepSpeed does; flags given by the user win. */
    int64_t ga = im->ds_grad_accum;
    if (ga <= 0)
        return TP_OK;
    tp_train *t = &c->train;
    int64_t dp = tp_train_dp(t);
    if (dp < 1)
        return TP_OK; /* tp_config_validate reports the layout */
    bool micro_given = user->micro_batch || im->ds_micro_batch > 0;
    bool global_given = user->global_batch || im->ds_train_batch > 0;
    /* Each factor is at most 2^40 (ds_count), so the products can pass
     * int64: check them before using them (issue 14). */
    int64_t ga_dp = 1, product = 0;
    if (!ds_batch_product(1, ga, dp, &ga_dp))
        return tp_error_set(err, TP_ERR_CONFIG, "gradient_accumulation_steps",
                            "gradient_accumulation_steps %" PRId64 " x data-parallel size %" PRId64
                            " is more than the %" PRId64 " sequences a global batch may have",
                            ga, dp, (int64_t)MAX_BATCH);
    if (!(!micro_given && global_given) && !ds_batch_product(t->micro_batch, ga, dp, &product))
        return tp_error_set(err, TP_ERR_CONFIG, "gradient_accumulation_steps",
                            "train_micro_batch_size_per_gpu %" PRId64
                            " x gradient_accumulation_steps %" PRId64 " x data-parallel size %" PRId64
                            " is more than the %" PRId64 " sequences a global batch may have",
                            t->micro_batch, ga, dp, (int64_t)MAX_BATCH);
    if (!micro_given && !global_given) {
        t->global_batch = product;
    } else if (micro_given && !global_given) {
        t->global_batch = product;
    } else if (!micro_given && global_given) {
        if (t->global_batch % ga_dp != 0)
            return tp_error_set(err, TP_ERR_CONFIG, "train_batch_size",
                                "%" PRId64 " is not a multiple of gradient_accumulation_steps %" PRId64
                                " x data-parallel size %" PRId64,
                                t->global_batch, ga, dp);
        t->micro_batch = t->global_batch / ga_dp;
    } else if (t->global_batch != product) {
        return tp_error_set(err, TP_ERR_CONFIG, "train_batch_size",
                            "%" PRId64 " is not train_micro_batch_size_per_gpu %" PRId64
                            " x gradient_accumulation_steps %" PRId64 " x data-parallel size %" PRId64
                            " (= %" PRId64 ")",
                            t->global_batch, t->micro_batch, ga, dp, product);
    }
    return TP_OK;
}
