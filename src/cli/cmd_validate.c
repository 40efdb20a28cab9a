/* SPDX-License-Identifier: MIT */
/*
 * cmd_validate.c: `trainplan validate FILE.csv [--json] [--eff LIST]`.
 *
 * Reads measured runs (the columns of data/runs/runs-dev.csv,
 * src/io/runs_csv.h), predicts every row with libtp and compares in
 * convention-free quantities (runs-dev-sources.md explains every column):
 *
 *  - throughput as tokens/s per GPU: taken as published when the row
 *    states it; from the step time (global batch x sequence / step / GPUs)
 *    when that is stated; otherwise converted from TFLOP/s (or MFU/HFU x
 *    the source's peak) with the source's own FLOP convention: Megatron
 *    2021 and BLOOM count hardware FLOPs 96*B*s*L*h^2*(1 + s/6h + V/16Lh)
 *    (full recompute, no causal discount), Megatron-Core 2024 and NeMo
 *    count model FLOPs without the causal discount (Megatron's
 *    num_floating_point_operations before 2025, NeMo flops_formulas.py,
 *    with the unpadded vocabulary). Each row says which.
 *  - memory in the row's metric and unit: torch max reserved ~ our total
 *    minus CUDA context and NCCL buffers (they are outside the caching
 *    allocator); torch peak active ~ that minus the fragmentation reserve;
 *    nvidia-smi ~ our total. GiB or GB as the row prints it. BLOOM's
 *    nvidia-smi figure is the first node, so stage 0 is compared there;
 *    elsewhere the heaviest stage (torchtitan reports the max over ranks).
 *  - fit verdict: rows whose notes say OUT OF MEMORY must be predicted not
 *    to fit, every other row to fit.
 *
 * Missing fields are filled with stated assumptions (listed per row);
 * rows that cannot be evaluated (TPU, missing architecture, MLA, no
 * layout, unknown GPU) are listed with the reason, never dropped. The
 * 96 GB HBM2e H100 at 500 W of the torchtitan rows is defined below as a
 * derived GPU. Exit status 0 whenever the file was read.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <stddef.h>

#include "cli.h"
#include "io_internal.h"
#include "runs_csv.h"

#define GIB 1073741824.0
#define GB 1e9

/* ------------------------------------------------------------------ */
/* flags                                                               */
/* ------------------------------------------------------------------ */

enum { VF_JSON, VF_EFF, VF_COUNT };

static const cli_flag vflags[VF_COUNT] = {
    [VF_JSON] = {"--json", NULL, NULL, "off", "print one JSON object instead of the table",
                 CLI_SWITCH, 0, 0, 0, 0, NULL, "Output"},
    [VF_EFF] = {"--eff", "LIST", NULL, "calibrated",
                "override efficiencies, e.g. gemm=0.7,attn=0.5,h100:gemm_fp8=0.6 (keys: gemm "
                "gemm_fp8 gemm_half_dim attn mem_bw intra_bw inter_bw overlap; fractions of a peak in "
                "[0.001, 1], overlap [0, 1], gemm_half_dim 0 or [1, 1e6]; a GPU preset or "
                "prefix limits one); for sensitivity studies and tools/calibrate.py",
                CLI_STR, 0, 0, 0, 0, NULL, "Model"},
};

void cmd_validate_help(FILE *f)
{
    fprintf(f,
            "usage: trainplan validate FILE.csv [--json] [--eff LIST]\n\n"
            "Predicts every row of a measured-runs file (the columns of runs-dev.csv) and\n"
            "compares: throughput as tokens/s per GPU (converted from TFLOP/s or MFU with\n"
            "the source's own FLOP convention where that is all the row gives), memory per\n"
            "GPU in the row's metric and unit, and the fit verdict (out-of-memory rows must\n"
            "not fit, the others must). Missing fields are filled with stated assumptions;\n"
            "rows that cannot be evaluated are listed with the reason. Prints a per-row\n"
            "table and a summary (median, 90th percentile and maximum absolute relative\n"
            "error; verdict accuracy), or one JSON object with --json.\n");
    cli_print_flags(f, vflags, VF_COUNT);
    fprintf(f, "\nExit codes: 0 the file was read and evaluated, 2 bad arguments or an\n"
               "unreadable or malformed file (the message names line and column).\n\n"
               "Example:\n"
               "  trainplan validate data/runs/runs-dev.csv\n");
}

/* ------------------------------------------------------------------ */
/* efficiency overrides (--eff)                                        */
/* ------------------------------------------------------------------ */

#define MAX_OVERRIDES 128

typedef struct eff_override {
    char gpu[24]; /* "" = every GPU, else a prefix of the GPU name */
    char key[24];
    double value;
} eff_override;

typedef struct overrides {
    eff_override v[MAX_OVERRIDES];
    size_t n;
} overrides;

/*
 * The keys of --eff and the range where each means something: fractions of
 * a peak rate in [1e-3, 1] (below that the step time is dominated by a
 * factor no real GPU shows, and at 0 or a subnormal every row's time
 * divides to 0 or inf); gemm_fp8 0 = "as gemm"; gemm_half_dim in elements,
 * 0 = no size penalty; overlap a fraction in [0, 1]. The library checks the
 * same ranges (tp_gpu_validate).
 */
typedef struct eff_key {
    const char *name;
    size_t offset; /* into tp_gpu_eff */
    double lo, hi;
    bool zero_ok; /* 0, or [lo, hi] */
} eff_key;

#define EFF_KEY(f, lo, hi, z) {#f, offsetof(tp_gpu_eff, f), (lo), (hi), (z)}
static const eff_key eff_keys[] = {
    EFF_KEY(gemm, 1e-3, 1.0, false),     EFF_KEY(gemm_fp8, 1e-3, 1.0, true),
    EFF_KEY(gemm_half_dim, 1.0, 1e6, true), EFF_KEY(attn, 1e-3, 1.0, false),
    EFF_KEY(mem_bw, 1e-3, 1.0, false),   EFF_KEY(intra_bw, 1e-3, 1.0, false),
    EFF_KEY(inter_bw, 1e-3, 1.0, false), EFF_KEY(overlap, 0.0, 1.0, false),
};
#define NUM_EFF_KEYS (sizeof eff_keys / sizeof eff_keys[0])

static const eff_key *eff_key_of(const char *key)
{
    for (size_t i = 0; i < NUM_EFF_KEYS; i++)
        if (strcmp(key, eff_keys[i].name) == 0)
            return &eff_keys[i];
    return NULL;
}

static double *eff_field(tp_gpu_eff *e, const char *key)
{
    const eff_key *k = eff_key_of(key);
    return k ? (double *)(void *)((char *)e + k->offset) : NULL;
}

/* "a, b, c" of the GPU presets; a prefix must match one of them. */
static void gpu_names(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < tp_io_preset_count(TP_IO_GPU) && used < n; i++) {
        int w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "",
                         tp_io_preset_name(TP_IO_GPU, i));
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

static bool gpu_prefix_known(const char *prefix)
{
    for (size_t i = 0; i < tp_io_preset_count(TP_IO_GPU); i++)
        if (strncmp(tp_io_preset_name(TP_IO_GPU, i), prefix, strlen(prefix)) == 0)
            return true;
    return false;
}

static tp_status parse_overrides(const char *list, overrides *ov, tp_error *err)
{
    ov->n = 0;
    const char *p = list;
    char q[TP_IO_QUOTE_MAX + 4];
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[96];
        if (len == 0 || len >= sizeof item)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "eff",
                                "--eff: bad item in \"%s\" (an empty item, or one over %zu bytes)",
                                tp_io_quote(list, q, sizeof q), sizeof item - 1);
        memcpy(item, p, len);
        item[len] = '\0';
        char *eq = strchr(item, '=');
        if (!eq)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "eff",
                                "--eff: expected KEY=VALUE or GPU:KEY=VALUE, got \"%s\"",
                                tp_io_quote(item, q, sizeof q));
        if (ov->n >= MAX_OVERRIDES)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "eff", "--eff: at most %d items",
                                MAX_OVERRIDES);
        *eq = '\0';
        eff_override *o = &ov->v[ov->n];
        memset(o, 0, sizeof *o);
        char *colon = strchr(item, ':');
        const char *key = item;
        if (colon) {
            *colon = '\0';
            if (!*item || strlen(item) >= sizeof o->gpu || !gpu_prefix_known(item)) {
                char names[512];
                gpu_names(names, sizeof names);
                return tp_error_set(err, TP_ERR_INVALID_ARG, "eff",
                                    "--eff: unknown GPU \"%s\" (a GPU preset or a prefix of one: "
                                    "%s)",
                                    tp_io_quote(item, q, sizeof q), names);
            }
            snprintf(o->gpu, sizeof o->gpu, "%.23s", item); /* fits: checked above */
            key = colon + 1;
        }
        const eff_key *k = eff_key_of(key);
        if (!k)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "eff",
                                "--eff: unknown efficiency \"%s\" (expected one of gemm, "
                                "gemm_fp8, gemm_half_dim, attn, mem_bw, intra_bw, inter_bw, "
                                "overlap)",
                                tp_io_quote(key, q, sizeof q));
        snprintf(o->key, sizeof o->key, "%s", k->name);
        char field[40];
        snprintf(field, sizeof field, "--eff %s", k->name);
        tp_status st = k->zero_ok
                           ? tp_io_parse_f64_or0(field, eq + 1, k->lo, k->hi, &o->value, err)
                           : tp_io_parse_f64(field, eq + 1, k->lo, k->hi, &o->value, err);
        if (st != TP_OK)
            return st;
        ov->n++;
        p = end ? end + 1 : p + len;
    }
    return TP_OK;
}

static void apply_overrides(const overrides *ov, tp_gpu *g)
{
    for (size_t i = 0; i < ov->n; i++) {
        const eff_override *o = &ov->v[i];
        if (o->gpu[0] && strncmp(g->name, o->gpu, strlen(o->gpu)) != 0)
            continue;
        double *f = eff_field(&g->eff, o->key);
        if (f)
            *f = o->value;
    }
}

/* ------------------------------------------------------------------ */
/* cells                                                               */
/* ------------------------------------------------------------------ */

typedef struct rowref {
    const tp_io_csv *csv;
    size_t row;
} rowref;

static const char *cell(const rowref *r, const char *col)
{
    return tp_io_csv_cell(r->csv, r->row, tp_io_csv_col(r->csv, col));
}

static bool has(const rowref *r, const char *col)
{
    return cell(r, col)[0] != '\0';
}

/* Whole cell is an integer. */
static bool cell_i64(const rowref *r, const char *col, int64_t *out)
{
    const char *s = cell(r, col);
    if (!*s)
        return false;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0' || v < 0)
        return false;
    *out = (int64_t)v;
    return true;
}

/* Leading integer of a cell ("768 per expert" -> 768). */
static bool cell_lead_i64(const rowref *r, const char *col, int64_t *out)
{
    const char *s = cell(r, col);
    if (!isdigit((unsigned char)*s))
        return false;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (v <= 0)
        return false;
    *out = (int64_t)v;
    return true;
}

/*
 * A measured quantity: 0 (not measured) or [1e-9, 1e15] in the column's
 * unit, read by the one number parser (no hex: "0x89" is not 137; no
 * subnormal: a 1e-320 measurement would make every relative error 0 or
 * inf). measured_cells_ok refuses the row when a present cell is not such
 * a number; after it, cell_f64 only reads.
 */
#define MEASURED_MIN 1e-9
#define MEASURED_MAX 1e15
static const char *const measured_cols[] = {
    "measured_tokens_per_sec", "measured_step_time_s", "measured_tflops_per_gpu",
    "peak_tflops_for_mfu",     "measured_mfu",         "measured_hfu",
    "measured_memory_gb_per_gpu"};

static bool cell_f64(const rowref *r, const char *col, double *out)
{
    const char *s = cell(r, col);
    if (!*s)
        return false;
    return tp_io_parse_f64_or0(col, s, MEASURED_MIN, MEASURED_MAX, out, NULL) == TP_OK;
}

/* Case-insensitive substring. */
static bool contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return false;
}

/* ------------------------------------------------------------------ */
/* per-row evaluation                                                  */
/* ------------------------------------------------------------------ */

typedef enum framework {
    FW_GENERIC = 0,
    FW_MEGATRON21,  /* Megatron-LM 2021 (Narayanan et al.) */
    FW_MCORE,       /* Megatron-Core, NeMo, Megatron-Bridge */
    FW_DEEPSPEED,   /* Megatron-DeepSpeed (BLOOM) */
    FW_TORCHTITAN,
    FW_TORCHTUNE,
    FW_MOSAIC       /* llm-foundry / composer FSDP */
} framework;

typedef enum mem_metric { MEM_NONE = 0, MEM_NVSMI, MEM_RESERVED, MEM_ACTIVE } mem_metric;

typedef struct vrow {
    const char *id;
    int line;
    bool evaluated;
    char reason[256];
    char assume[700];
    char gpu[TP_NAME_MAX];
    /* throughput */
    bool has_tput;
    const char *tput_kind; /* short basis for the table: published, step time, ... */
    char tput_basis[200];
    double meas_tps, pred_tps, tput_err;
    /* memory */
    bool has_mem;
    mem_metric metric;
    const char *mem_unit; /* "GiB" or "GB" */
    double meas_mem, pred_mem, mem_err;
    /* verdict, from the heaviest stage */
    bool expect_fit, pred_fit;
    double fit_total_bytes, fit_capacity_bytes;
    int64_t fit_stage;
    /* prediction */
    tp_time time;           /* step-time breakdown */
    tp_memory mem;          /* the compared stage's memory breakdown */
    double step_s, mfu;
    const char *bottleneck;
    const char *recompute;
} vrow;

static void note(vrow *v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void note(vrow *v, const char *fmt, ...)
{
    size_t len = strlen(v->assume);
    if (len + 4 >= sizeof v->assume)
        return;
    if (len > 0) {
        v->assume[len++] = ';';
        v->assume[len++] = ' ';
        v->assume[len] = '\0';
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->assume + len, sizeof v->assume - len, fmt, ap);
    va_end(ap);
}

static framework framework_of(const rowref *r)
{
    const char *id = cell(r, "id"), *src = cell(r, "source");
    if (strncmp(id, "megatron21", 10) == 0)
        return FW_MEGATRON21;
    if (strncmp(id, "mcore", 5) == 0 || strncmp(id, "nemo", 4) == 0 ||
        strncmp(id, "mbridge", 7) == 0 || contains(src, "NeMo") || contains(src, "Megatron-Core") ||
        contains(src, "Megatron-Bridge"))
        return FW_MCORE;
    if (strncmp(id, "bloom", 5) == 0 || contains(src, "bigscience"))
        return FW_DEEPSPEED;
    if (strncmp(id, "titan", 5) == 0 || contains(src, "torchtitan"))
        return FW_TORCHTITAN;
    if (strncmp(id, "torchtune", 9) == 0 || contains(src, "torchtune"))
        return FW_TORCHTUNE;
    if (strncmp(id, "mosaic", 6) == 0 || contains(src, "llm-foundry"))
        return FW_MOSAIC;
    if (contains(src, "Megatron"))
        return FW_MEGATRON21;
    return FW_GENERIC;
}

/*
 * The torchtitan benchmark GPUs: H100 with 96 GB HBM2e capped at 500 W on
 * Meta's Grand Teton (runs-dev-sources.md section 10; the benchmark doc
 * says their peak is unknown). Derived from h100-sxm, stated assumptions:
 *  - capacity: 96 GiB of HBM2e less the same driver reserve as the 80 GB
 *    H100 (81,559 of 81,920 MiB): 97,871 MiB = 95.6 GiB;
 *  - HBM2e bandwidth: the 80 GB HBM2e H100 PCIe's 2.0 TB/s for 5 stacks,
 *    scaled to 6 stacks: 2.4 TB/s;
 *  - peak FLOP/s: the SXM5 tensor-core peaks (same GH100 silicon and boost
 *    clock); the 500 W cap lowers the sustained clock, which shows up as a
 *    lower achieved fraction (docs/ACCURACY.md reports the error it leaves).
 */
static void derive_h100_96gb_500w(tp_gpu *g)
{
    snprintf(g->name, sizeof g->name, "h100-96gb-500w");
    g->mem_capacity_bytes = 96.0 * GIB * (81559.0 / 81920.0);
    g->mem_bw_bytes_per_s = 2.4e12;
    tp_gpu_default_eff(g);
}

/* GPU preset for a gpu_type cell; NULL name = not a GPU we model. */
static const char *gpu_preset_of(const char *type, bool *derived_500w)
{
    *derived_500w = false;
    if (contains(type, "TPU"))
        return NULL;
    if (contains(type, "GB200"))
        return "gb200";
    if (contains(type, "B200"))
        return "b200";
    if (contains(type, "H200"))
        return "h200";
    if (contains(type, "H800"))
        return "h800";
    if (contains(type, "H100")) {
        if (contains(type, "96GB") && contains(type, "500W")) {
            *derived_500w = true;
            return "h100-sxm";
        }
        if (contains(type, "PCIe"))
            return "h100-pcie";
        return "h100-sxm";
    }
    if (contains(type, "A100")) {
        if (contains(type, "40GB"))
            return "a100-40gb";
        return "a100-80gb";
    }
    if (contains(type, "MI300X"))
        return "mi300x";
    return NULL;
}

typedef enum family { FAM_UNKNOWN = 0, FAM_GPT, FAM_LLAMA, FAM_BLOOM, FAM_NEMOTRON } family;

static family family_of(const char *name)
{
    if (contains(name, "llama") || contains(name, "qwen") || contains(name, "mistral") ||
        contains(name, "mixtral"))
        return FAM_LLAMA;
    if (contains(name, "nemotron"))
        return FAM_NEMOTRON;
    if (contains(name, "bloom"))
        return FAM_BLOOM;
    if (contains(name, "gpt") || contains(name, "mpt"))
        return FAM_GPT;
    return FAM_UNKNOWN;
}

/* Build the model from the row; false (with v->reason) when it cannot. */
static bool build_model(const rowref *r, framework fw, vrow *v, tp_model *m)
{
    memset(m, 0, sizeof *m);
    const char *name = cell(r, "model_name");
    snprintf(m->name, sizeof m->name, "%s", name);
    if (contains(cell(r, "kv_heads"), "MLA")) {
        snprintf(v->reason, sizeof v->reason,
                 "multi-head latent attention (MLA) is not modelled by trainplan");
        return false;
    }
    int64_t L, h, a;
    if (!cell_i64(r, "layers", &L) || !cell_i64(r, "hidden", &h) || !cell_i64(r, "heads", &a)) {
        snprintf(v->reason, sizeof v->reason,
                 "architecture not stated (layers, hidden size or heads missing)");
        return false;
    }
    family fam = family_of(name);
    if (fam == FAM_UNKNOWN) {
        snprintf(v->reason, sizeof v->reason, "unknown architecture family \"%s\"", name);
        return false;
    }
    m->num_layers = L;
    m->hidden = h;
    m->num_heads = a;
    int64_t kv = 0, f = 0, V = 0;
    if (!cell_i64(r, "kv_heads", &kv)) {
        kv = a;
        note(v, "kv_heads not stated: multi-head attention");
    }
    m->num_kv_heads = kv;
    bool per_expert = contains(cell(r, "ffn_hidden"), "per expert");
    if (!cell_lead_i64(r, "ffn_hidden", &f)) {
        f = 4 * h;
        note(v, "ffn_hidden not stated: 4h = %lld", (long long)f);
    }
    m->ffn_hidden = f;
    if (!cell_i64(r, "vocab", &V)) {
        V = fam == FAM_BLOOM ? 250880 : 50257;
        note(v, "vocab not stated: %lld (%s)", (long long)V,
             fam == FAM_BLOOM ? "BLOOM's padded production vocabulary"
                              : "the GPT-2 BPE vocabulary of GPT-3");
    }
    m->vocab = V;
    switch (fam) {
    case FAM_LLAMA:
        m->norm = TP_NORM_RMSNORM;
        m->mlp = TP_MLP_SWIGLU;
        m->pos = TP_POS_ROTARY;
        m->tie_embeddings = contains(name, "3.2");
        if (contains(name, "qwen3")) {
            m->head_dim = 128;
            note(v, "head_dim 128 (official Qwen3 config)");
        }
        break;
    case FAM_NEMOTRON: /* squared-ReLU MLP: two matrices like GeLU */
        m->norm = TP_NORM_LAYERNORM;
        m->mlp = TP_MLP_GELU;
        m->pos = TP_POS_ROTARY;
        break;
    case FAM_BLOOM:
        m->norm = TP_NORM_LAYERNORM;
        m->mlp = TP_MLP_GELU;
        m->pos = TP_POS_ALIBI;
        m->linear_bias = true;
        m->tie_embeddings = true;
        break;
    case FAM_GPT:
    case FAM_UNKNOWN:
    default:
        m->norm = TP_NORM_LAYERNORM;
        m->mlp = TP_MLP_GELU;
        m->pos = TP_POS_LEARNED;
        m->linear_bias = true;
        m->tie_embeddings = true;
        break;
    }
    int64_t E = 0, k = 0;
    if (cell_lead_i64(r, "moe_experts", &E) && E > 0) {
        if (!cell_i64(r, "moe_topk", &k)) {
            snprintf(v->reason, sizeof v->reason, "MoE top-k not stated");
            return false;
        }
        m->num_experts = E;
        m->topk = k;
        m->moe_ffn_hidden = f;
        if (!per_expert)
            note(v, "ffn_hidden taken as the per-expert width");
    }
    (void)fw;
    return true;
}

/* Recompute cell -> enum; false when blank. */
static bool recompute_of(const char *s, tp_recompute *out)
{
    if (contains(s, "full")) {
        *out = TP_RECOMPUTE_FULL;
        return true;
    }
    if (contains(s, "selective")) {
        *out = TP_RECOMPUTE_SELECTIVE;
        return true;
    }
    if (contains(s, "none")) {
        *out = TP_RECOMPUTE_NONE;
        return true;
    }
    return false;
}

static const char *recompute_name(tp_recompute rc)
{
    return rc == TP_RECOMPUTE_FULL ? "full" : rc == TP_RECOMPUTE_SELECTIVE ? "selective" : "none";
}

/* Build training setup and options; false (with v->reason) when it cannot. */
static bool build_train(const rowref *r, framework fw, vrow *v, tp_config *c, bool *rc_given)
{
    tp_train *t = &c->train;
    tp_options *o = &c->opts;
    tp_train_default(t);
    tp_options_default(o);
    const char *id = cell(r, "id"), *notes = cell(r, "notes");
    int64_t tp, pp, dp, cp = 1, ep = 1, gpus = 0, seq;
    if (!cell_i64(r, "tp", &tp) || !cell_i64(r, "pp", &pp) || !cell_i64(r, "dp", &dp) ||
        tp < 1 || pp < 1 || dp < 1) {
        snprintf(v->reason, sizeof v->reason, "parallel layout (TP, PP, DP) not stated");
        return false;
    }
    if (!cell_i64(r, "seq_len", &seq) || seq < 1) {
        snprintf(v->reason, sizeof v->reason, "sequence length not stated");
        return false;
    }
    if (has(r, "cp") && (!cell_i64(r, "cp", &cp) || cp < 1))
        cp = 1;
    if (has(r, "ep") && (!cell_i64(r, "ep", &ep) || ep < 1))
        ep = 1;
    const int64_t max_size = 1048576; /* the library's bound on GPUs */
    if (tp > max_size || pp > max_size || dp > max_size || cp > max_size || ep > max_size ||
        (double)tp * (double)pp * (double)dp * (double)cp > (double)max_size) {
        snprintf(v->reason, sizeof v->reason, "parallel sizes out of range (more than %lld GPUs)",
                 (long long)max_size);
        return false;
    }
    cell_i64(r, "num_gpus", &gpus);
    int64_t layout = tp * pp * dp * cp;
    if (gpus != layout) {
        note(v, "GPUs set to tp*pp*dp*cp = %lld (the row's #GPUs %lld disagrees with its layout)",
             (long long)layout, (long long)gpus);
        gpus = layout;
    }
    t->num_gpus = gpus;
    t->tp = tp;
    t->pp = pp;
    t->cp = cp;
    t->ep = ep;
    t->seq_len = seq;

    int64_t gpn = 0;
    if (contains(cell(r, "interconnect"), "NVL72")) {
        t->gpus_per_node = 72;
        note(v, "NVL72: one 72-GPU NVLink domain");
    } else if (cell_i64(r, "gpus_per_node", &gpn) && gpn > 0) {
        t->gpus_per_node = gpn;
    }

    /* precision */
    const char *prec = cell(r, "precision");
    if (contains(prec, "fp8") || contains(prec, "float8"))
        t->precision = TP_PREC_FP8;
    else if (contains(prec, "fp16"))
        t->precision = TP_PREC_FP16;
    else
        t->precision = TP_PREC_BF16;
    if (!prec[0])
        note(v, "precision not stated: bf16");

    /* micro-batch, accumulation, global batch */
    int64_t mb = 1, gb = 0;
    if (!cell_i64(r, "micro_batch", &mb) || mb < 1 || mb > ((int64_t)1 << 40)) {
        mb = 1;
        note(v, "micro-batch not stated: 1");
    }
    bool gb_given = cell_i64(r, "global_batch", &gb) && gb > 0;
    if (fw == FW_TORCHTITAN && pp > 1) {
        /* micro_batch holds torchtitan's local (per-DP-rank) batch, split
         * into as many micro-batches as pipeline stages (its default) */
        int64_t local = mb;
        if (local % pp == 0) {
            mb = local / pp;
            note(v, "local batch %lld split into %lld micro-batches of %lld (torchtitan default: "
                    "one per pipeline stage)",
                 (long long)local, (long long)pp, (long long)mb);
        }
        if (!gb_given) {
            gb = local * dp;
            gb_given = true;
            note(v, "global batch = local batch x DP = %lld", (long long)gb);
        }
    }
    if (!gb_given) {
        gb = mb * dp;
        note(v, "global batch not stated: micro-batch x DP = %lld (no accumulation)",
             (long long)gb);
    }
    t->micro_batch = mb;
    t->global_batch = gb;

    /* interleaving */
    int64_t vv = 1;
    if (cell_i64(r, "interleave_v", &vv) && vv > 1 && pp > 1) {
        t->schedule = TP_SCHED_INTERLEAVED;
        t->vpp = vv;
    }
    int64_t L = c->model.num_layers;
    bool embed_slot = contains(notes, "embedding given its own PP slot");
    if (pp > 1 && (embed_slot || (t->vpp > 1 && L % (pp * t->vpp) != 0))) {
        /* the embedding and the loss each take a layer's slot in the split */
        if ((L + 2) % pp == 0 && (L + 2) / pp >= 2) {
            t->first_stage_layers = t->last_stage_layers = (L + 2) / pp - 1;
            note(v, "pipeline split counts the embedding and the loss as a layer each: %lld "
                    "layers on the end stages",
                 (long long)t->first_stage_layers);
        }
    }

    /* sequence parallelism */
    const char *sp = cell(r, "sp");
    if (sp[0] == 'y' || sp[0] == 'Y')
        t->sp = true;
    else if (sp[0] == 'n' || sp[0] == 'N')
        t->sp = false;
    else {
        t->sp = tp > 1;
        if (tp > 1)
            note(v, "SP not stated: on (TP > 1)");
    }

    /* ZeRO / FSDP / distributed optimizer */
    const char *z = cell(r, "zero_or_fsdp");
    if (contains(z, "fsdp"))
        t->zero = 3;
    else if (z[0] >= '0' && z[0] <= '3')
        t->zero = z[0] - '0';
    else
        t->zero = 0;
    if (fw == FW_MCORE && t->zero == 0) {
        t->zero = 1;
        note(v, "distributed optimizer (ZeRO-1) as in the Megatron-Core/NeMo recipes");
    }

    /* recompute */
    tp_recompute rc;
    *rc_given = recompute_of(cell(r, "recompute"), &rc);
    t->recompute = *rc_given ? rc : TP_RECOMPUTE_NONE;

    /* gradients, optimizer, kernels: per framework */
    switch (fw) {
    case FW_MEGATRON21:
        t->grad_dtype = TP_DTYPE_FP32; /* fp32 main grads, all-reduced in fp32 */
        t->flash_attn = false;          /* 2021: fused softmax, no FlashAttention */
        t->dropout = true;              /* GPT dropout 0.1 */
        t->pad_vocab_to = 128 * tp;
        o->dp_comm_overlap = contains(notes, "DDP impl torch");
        o->ce_bytes_per_logit = 4.0; /* vocab-parallel CE: fp32 logits only */
        break;
    case FW_DEEPSPEED:
        t->grad_dtype = TP_DTYPE_FP32; /* BF16_Optimizer fp32 gradient accumulation */
        t->flash_attn = false;
        t->pad_vocab_to = 0;            /* 250880 is already padded */
        o->dp_comm_overlap = false;     /* pipeline engine reduces after the flush */
        /* BF16_Optimizer keeps the bf16 .grad beside its flat fp32 gradient
         * buffer (2 B/param, bf16_optimizer.py); the nvidia-smi readings of
         * the ten BLOOM rows sit a further 3.0 B/param above the model
         * (least squares, rms 2.1 GB): memory the allocator holds after
         * the optimizer flattens and re-partitions the parameters (cause
         * not verified). Fitted on one source: stated in docs/ACCURACY.md. */
        o->extra_param_bytes = 5.0;
        o->pp_scatter_gather = false;   /* the pipeline engine sends whole activations */
        o->ce_bytes_per_logit = 4.0;    /* Megatron vocab-parallel CE */
        note(v, "DeepSpeed pipeline engine: gradient reduction after the pipeline flush, "
                "not overlapped; no FlashAttention (2022); BF16_Optimizer buffers 5 B/param "
                "unsharded (2 from its code, 3 fitted on these rows)");
        break;
    case FW_MCORE:
        t->grad_dtype = TP_DTYPE_FP32; /* fp32 main grads */
        t->pad_vocab_to = 128 * tp;
        o->tp_comm_overlap = tp > 1;
        o->ce_bytes_per_logit = 4.0; /* vocab-parallel CE: fp32 logits only */
        if (tp > 1 && !contains(notes, "tp-comm-overlap"))
            note(v, "TP communication overlap on (NeMo/Megatron-Bridge performance recipes)");
        break;
    case FW_TORCHTITAN:
        t->grad_dtype = TP_DTYPE_FP32; /* FSDP reduce in fp32 */
        o->tp_comm_overlap = tp > 1 && contains(notes, "AsyncTP") && !contains(id, "vanilla");
        o->sac_ops = true; /* torchtitan's selective mode is per-op SAC */
        break;
    case FW_TORCHTUNE:
        if (contains(cell(r, "precision"), "pure bf16")) {
            t->optimizer.master_weights = false;
            t->optimizer.moment_dtype = TP_DTYPE_BF16;
        }
        t->fused_ce = contains(id, "chunked") || contains(id, "-ac") || contains(notes, "chunked");
        break;
    case FW_MOSAIC:
        /* llm-foundry trains MPT with loss_fn fused_crossentropy (flash-attn's
         * in-place cross-entropy) by default */
        t->fused_ce = true;
        note(v, "fused cross-entropy (llm-foundry default loss_fn)");
        /* 2023 llm-foundry: FlashAttention-2 or triton flash attention
         * (the row notes), kernels written for Ampere; FlashAttention-3
         * came out in July 2024 */
        o->attn_ampere_kernel = true;
        if (contains(cell(r, "gpu_type"), "H100"))
            note(v, "attention kernel written for Ampere (FlashAttention-2/triton, 2023) on "
                    "Hopper: 35/75 of the native rate (FlashAttention-3 paper)");
        break;
    case FW_GENERIC:
    default:
        break;
    }
    return true;
}

/* Memory metric of the row. */
static mem_metric metric_of(const char *s, const char **unit)
{
    *unit = contains(s, "GiB") ? "GiB" : "GB";
    if (contains(s, "nvidia-smi"))
        return MEM_NVSMI;
    if (contains(s, "reserved"))
        return MEM_RESERVED;
    if (contains(s, "active"))
        return MEM_ACTIVE;
    return MEM_NONE;
}

static const char *metric_name(mem_metric m)
{
    switch (m) {
    case MEM_NVSMI: return "nvidia-smi used";
    case MEM_RESERVED: return "torch reserved";
    case MEM_ACTIVE: return "torch peak active";
    case MEM_NONE: break;
    }
    return "";
}

/* Our prediction of the row's memory metric, bytes. */
static double predicted_metric(const tp_memory *m, mem_metric metric)
{
    double total = m->total_bytes;
    switch (metric) {
    case MEM_RESERVED: return total - m->framework_bytes - m->comm_buffers_bytes;
    case MEM_ACTIVE:
        return total - m->framework_bytes - m->comm_buffers_bytes - m->fragmentation_bytes;
    case MEM_NVSMI:
    case MEM_NONE: break;
    }
    return total;
}

/* FLOPs per token under the source's convention (see the file header). */
static bool source_flops_per_token(const tp_config *c, bool hardware, bool unpadded, double *out)
{
    tp_config cc = *c;
    cc.opts.attn_flops = TP_ATTN_FLOPS_FULL;
    if (unpadded)
        cc.train.pad_vocab_to = 0;
    tp_params P;
    if (tp_model_params(&cc.model, cc.train.pad_vocab_to, &P, NULL) != TP_OK)
        return false;
    tp_flops fl;
    tp_flops_eval(&cc, &P, &fl);
    *out = hardware ? fl.hardware_per_token : fl.model_per_token;
    return *out > 0.0;
}

/* Measured tokens/s per GPU and how it was obtained. */
static bool measured_throughput(const rowref *r, framework fw, const tp_config *c, vrow *v)
{
    double x;
    const char *unit = cell(r, "tokens_per_sec_unit");
    if (cell_f64(r, "measured_tokens_per_sec", &x) && x > 0.0) {
        if (!unit[0] || contains(unit, "per GPU")) {
            v->meas_tps = x;
            v->tput_kind = "published";
            snprintf(v->tput_basis, sizeof v->tput_basis, "tokens/s per GPU as published");
        } else {
            v->meas_tps = x / (double)c->train.num_gpus;
            v->tput_kind = "total/GPUs";
            snprintf(v->tput_basis, sizeof v->tput_basis, "published total tokens/s / GPUs");
        }
        return true;
    }
    if (cell_f64(r, "measured_step_time_s", &x) && x > 0.0) {
        v->meas_tps = (double)c->train.global_batch * (double)c->train.seq_len / x /
                      (double)c->train.num_gpus;
        v->tput_kind = "step time";
        snprintf(v->tput_basis, sizeof v->tput_basis,
                 "from the step time: global batch x seq / step / GPUs");
        return true;
    }
    double tflops = 0.0, peak = 0.0, util = 0.0;
    const char *basis = cell(r, "tflops_basis");
    bool hfu = contains(basis, "HFU");
    bool have = cell_f64(r, "measured_tflops_per_gpu", &tflops) && tflops > 0.0;
    if (!have && cell_f64(r, "peak_tflops_for_mfu", &peak) && peak > 0.0) {
        if (cell_f64(r, "measured_mfu", &util) && util > 0.0) {
            tflops = util * peak;
            hfu = false;
            have = true;
        } else if (cell_f64(r, "measured_hfu", &util) && util > 0.0) {
            tflops = util * peak;
            hfu = true;
            have = true;
        }
    }
    if (!have)
        return false;
    bool unpadded = fw == FW_MCORE && strncmp(cell(r, "id"), "mcore", 5) != 0;
    double fpt;
    if (!source_flops_per_token(c, hfu, unpadded, &fpt))
        return false;
    v->meas_tps = tflops * 1e12 / fpt;
    v->tput_kind = hfu ? "HFU TFLOP/s" : "MFU TFLOP/s";
    snprintf(v->tput_basis, sizeof v->tput_basis,
             "from %.1f %s TFLOP/s/GPU / %.4g FLOP/token (%s)", tflops,
             hfu ? "hardware" : "model", fpt,
             hfu ? "Megatron HFU 96BsLh^2(1+s/6h+V/16Lh), no causal discount"
                 : unpadded ? "NeMo model FLOPs, no causal discount, unpadded V"
                            : "Megatron model FLOPs, no causal discount");
    return true;
}

/* Evaluate one row into v. */
static void eval_row(const tp_io_csv *csv, size_t row, const overrides *ov, vrow *v)
{
    rowref rr = {csv, row};
    const rowref *r = &rr;
    memset(v, 0, sizeof *v);
    v->id = cell(r, "id");
    v->line = csv->line[row];
    v->recompute = "";
    v->bottleneck = "";
    v->tput_kind = "-";
    const char *gtype = cell(r, "gpu_type");
    bool derived = false;
    const char *preset = gpu_preset_of(gtype, &derived);
    if (!preset) {
        snprintf(v->reason, sizeof v->reason, "%s: not a GPU trainplan models",
                 gtype[0] ? gtype : "no GPU type");
        if (contains(gtype, "TPU"))
            snprintf(v->reason, sizeof v->reason, "TPU, not a GPU: out of the planner's domain");
        return;
    }
    for (size_t i = 0; i < sizeof measured_cols / sizeof measured_cols[0]; i++) {
        const char *s = cell(r, measured_cols[i]);
        double x;
        tp_error e;
        if (*s && tp_io_parse_f64_or0(measured_cols[i], s, MEASURED_MIN, MEASURED_MAX, &x, &e) !=
                      TP_OK) {
            snprintf(v->reason, sizeof v->reason, "%s", e.message);
            return;
        }
    }
    framework fw = framework_of(r);
    tp_config c;
    memset(&c, 0, sizeof c);
    if (!build_model(r, fw, v, &c.model))
        return;
    tp_error err = {0};
    if (tp_io_gpu_load(preset, &c.gpu, &err) != TP_OK) {
        snprintf(v->reason, sizeof v->reason, "GPU preset %s: %.150s", preset, err.message);
        return;
    }
    if (derived) {
        derive_h100_96gb_500w(&c.gpu);
        note(v, "GPU: derived h100-96gb-500w (95.6 GiB, 2.4 TB/s, SXM peaks)");
    }
    if (contains(gtype, "capacity not stated"))
        note(v, "GPU capacity not stated: 80 GB");
    if (contains(cell(r, "interconnect"), "Omni-Path")) {
        /* Jean Zay A100 nodes: 4 x 100 Gb/s Omni-Path per 8 GPUs (recalled). */
        c.gpu.inter_bw_bytes_per_s = 6.25e9;
        note(v, "Omni-Path: 4 x 100 Gb/s per 8-GPU node = 6.25 GB/s per GPU (recalled)");
    } else if (contains(cell(r, "interconnect"), "1600 Gbps")) {
        c.gpu.inter_bw_bytes_per_s = 25e9; /* 1600 Gb/s per 8-GPU node */
    }
    apply_overrides(ov, &c.gpu);
    snprintf(v->gpu, sizeof v->gpu, "%s", c.gpu.name);
    bool rc_given = false;
    if (!build_train(r, fw, v, &c, &rc_given))
        return;

    v->expect_fit = !contains(cell(r, "notes"), "OUT OF MEMORY");
    tp_result res;
    tp_status st = tp_eval(&c, &res, &err);
    if (st == TP_OK && !rc_given) {
        /* not stated: the least recompute that fits */
        static const tp_recompute order[] = {TP_RECOMPUTE_NONE, TP_RECOMPUTE_SELECTIVE,
                                             TP_RECOMPUTE_FULL};
        for (size_t i = 1; i < 3 && !res.memory.fits; i++) {
            c.train.recompute = order[i];
            st = tp_eval(&c, &res, &err);
            if (st != TP_OK)
                break;
        }
        if (st == TP_OK)
            note(v, "recompute not stated: %s (the least that fits)",
                 recompute_name(c.train.recompute));
    }
    if (st != TP_OK) {
        snprintf(v->reason, sizeof v->reason, "configuration rejected: %.40s: %.150s",
                 err.path, err.message);
        return;
    }
    v->evaluated = true;
    v->recompute = recompute_name(c.train.recompute);
    v->pred_fit = res.memory.fits;
    v->fit_total_bytes = res.memory.total_bytes;
    v->fit_capacity_bytes = res.memory.capacity_bytes;
    v->fit_stage = res.memory.stage;
    v->step_s = res.time.step_s;
    v->mfu = res.time.mfu;
    v->bottleneck = res.time.bottleneck;
    v->time = res.time;
    v->mem = fw == FW_DEEPSPEED ? res.stage_first : res.memory;

    if (measured_throughput(r, fw, &c, v) && v->meas_tps > 0.0 && res.time.computed) {
        v->has_tput = true;
        v->pred_tps = res.time.tokens_per_s_per_gpu;
        v->tput_err = v->pred_tps / v->meas_tps - 1.0;
    }
    double mem;
    if (cell_f64(r, "measured_memory_gb_per_gpu", &mem) && mem > 0.0) {
        v->metric = metric_of(cell(r, "memory_metric"), &v->mem_unit);
        const tp_memory *m = fw == FW_DEEPSPEED ? &res.stage_first : &res.memory;
        double unit = strcmp(v->mem_unit, "GiB") == 0 ? GIB : GB;
        v->has_mem = v->metric != MEM_NONE;
        v->meas_mem = mem;
        v->pred_mem = predicted_metric(m, v->metric) / unit;
        v->mem_err = v->pred_mem / mem - 1.0;
    }
}

/* ------------------------------------------------------------------ */
/* summary and output                                                  */
/* ------------------------------------------------------------------ */

typedef struct stats {
    size_t n;
    double median, p90, max;
} stats;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Percentile by linear interpolation between closest ranks (NumPy default). */
static double percentile(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0.0;
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n)
        return sorted[n - 1];
    double frac = pos - (double)lo;
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

static stats abs_stats(const vrow *rows, size_t n, bool memory)
{
    stats s = {0, 0.0, 0.0, 0.0};
    double *e = malloc((n ? n : 1) * sizeof *e);
    if (!e)
        return s;
    for (size_t i = 0; i < n; i++) {
        if (memory ? rows[i].has_mem : rows[i].has_tput)
            e[s.n++] = fabs(memory ? rows[i].mem_err : rows[i].tput_err);
    }
    qsort(e, s.n, sizeof *e, cmp_double);
    s.median = percentile(e, s.n, 0.5);
    s.p90 = percentile(e, s.n, 0.9);
    s.max = s.n ? e[s.n - 1] : 0.0;
    free(e);
    return s;
}

static void print_text(const char *file, const vrow *rows, size_t n)
{
    size_t evaluated = 0, fit_ok = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].evaluated) {
            evaluated++;
            fit_ok += rows[i].expect_fit == rows[i].pred_fit;
        }
    }
    printf("trainplan validate: %s: %zu rows, %zu evaluated, %zu not evaluated\n\n", file, n,
           evaluated, n - evaluated);
    printf("%-52s %-15s %-12s %9s %9s %7s  %-22s %6s %6s %7s  %-9s\n", "run", "gpu",
           "compared as", "tok/s/GPU", "predicted", "error", "memory metric", "meas", "pred",
           "error", "fit exp/pred");
    for (size_t i = 0; i < n; i++) {
        const vrow *v = &rows[i];
        if (!v->evaluated)
            continue;
        char t1[16] = "-", t2[16] = "-", t3[16] = "-", m0[32] = "-", m1[16] = "-", m2[16] = "-",
             m3[16] = "-";
        if (v->has_tput) {
            snprintf(t1, sizeof t1, "%.0f", v->meas_tps);
            snprintf(t2, sizeof t2, "%.0f", v->pred_tps);
            snprintf(t3, sizeof t3, "%+.1f%%", 100.0 * v->tput_err);
        }
        if (v->has_mem) {
            snprintf(m0, sizeof m0, "%s %s", metric_name(v->metric), v->mem_unit);
            snprintf(m1, sizeof m1, "%.1f", v->meas_mem);
            snprintf(m2, sizeof m2, "%.1f", v->pred_mem);
            snprintf(m3, sizeof m3, "%+.1f%%", 100.0 * v->mem_err);
        }
        char kind[16];
        snprintf(kind, sizeof kind, "%s%s", v->has_tput ? v->tput_kind : "-",
                 v->assume[0] ? "*" : "");
        char id_s[256], gpu_s[TP_IO_SAFE_BYTES(sizeof v->gpu)];
        printf("%-52.52s %-15.15s %-12s %9s %9s %7s  %-22.22s %6s %6s %7s  %s/%s%s\n",
               tp_io_safe_text(v->id, id_s, sizeof id_s),
               tp_io_safe_text(v->gpu, gpu_s, sizeof gpu_s), kind, t1, t2, t3, m0, m1, m2, m3,
               v->expect_fit ? "fit" : "OOM",
               v->pred_fit ? "fit" : "OOM", v->expect_fit == v->pred_fit ? "" : "  WRONG");
    }
    printf("(* = fields the source leaves out were filled with the assumptions listed below;\n"
           " HFU/MFU TFLOP/s = converted to tokens/s with the source's FLOP convention)\n");
    printf("\nHow each row was compared, and the assumptions filled in:\n");
    for (size_t i = 0; i < n; i++) {
        const vrow *v = &rows[i];
        if (!v->evaluated)
            continue;
        fputs("  ", stdout);
        tp_io_put_safe(stdout, v->id);
        printf(" (line %d): %s; recompute %s; predicted step %.3g s, MFU %.1f%%, "
               "bottleneck: %s; heaviest stage %lld: %.1f GB (%.1f GiB) of %.1f GB (%.1f GiB)",
               v->line, v->has_tput ? v->tput_basis : "no throughput measured",
               v->recompute, v->step_s, 100.0 * v->mfu, v->bottleneck, (long long)v->fit_stage,
               v->fit_total_bytes / GB, v->fit_total_bytes / GIB, v->fit_capacity_bytes / GB,
               v->fit_capacity_bytes / GIB);
        if (v->assume[0]) {
            fputs("; assumed: ", stdout);
            tp_io_put_safe(stdout, v->assume);
        }
        printf("\n");
    }
    if (evaluated < n) {
        printf("\nNot evaluated:\n");
        for (size_t i = 0; i < n; i++)
            if (!rows[i].evaluated) {
                fputs("  ", stdout);
                tp_io_put_safe(stdout, rows[i].id);
                printf(" (line %d): ", rows[i].line);
                tp_io_put_safe(stdout, rows[i].reason);
                fputc('\n', stdout);
            }
    }
    stats ts = abs_stats(rows, n, false), ms = abs_stats(rows, n, true);
    printf("\nSummary (absolute relative error)\n");
    printf("  throughput (tokens/s per GPU), %zu rows: median %.1f%%, p90 %.1f%%, max %.1f%%\n",
           ts.n, 100.0 * ts.median, 100.0 * ts.p90, 100.0 * ts.max);
    printf("  memory per GPU, %zu rows: median %.1f%%, p90 %.1f%%, max %.1f%%\n", ms.n,
           100.0 * ms.median, 100.0 * ms.p90, 100.0 * ms.max);
    printf("  fit verdict: %zu of %zu right (%.1f%%)\n", fit_ok, evaluated,
           evaluated ? 100.0 * (double)fit_ok / (double)evaluated : 0.0);
}

/* json helpers: every number finite (NaN/inf never reach the output) */
static int jset(json_t *o, const char *k, json_t *v)
{
    return v ? json_object_set_new(o, k, v) : -1;
}

static json_t *jnum(double x)
{
    return json_real(isfinite(x) ? x : 0.0);
}

static json_t *stats_json(stats s)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    jset(o, "rows", json_integer((json_int_t)s.n));
    jset(o, "median_abs_rel_error", jnum(s.median));
    jset(o, "p90_abs_rel_error", jnum(s.p90));
    jset(o, "max_abs_rel_error", jnum(s.max));
    return o;
}

static json_t *row_json(const vrow *v)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    jset(o, "id", json_string(v->id));
    jset(o, "line", json_integer(v->line));
    jset(o, "evaluated", json_boolean(v->evaluated));
    if (!v->evaluated) {
        jset(o, "reason", json_string(v->reason));
        return o;
    }
    jset(o, "gpu", json_string(v->gpu));
    jset(o, "recompute", json_string(v->recompute));
    jset(o, "assumptions", json_string(v->assume));
    json_t *p = json_object();
    jset(p, "step_s", jnum(v->step_s));
    jset(p, "mfu", jnum(v->mfu));
    jset(p, "bottleneck", json_string(v->bottleneck));
    const tp_time *tm = &v->time;
    json_t *tb = json_object();
    for (size_t i = 0; i < TP_IO_NUM_TIME_PARTS; i++)
        jset(tb, tp_io_time_parts[i].key, jnum(tp_io_part_value(tm, &tp_io_time_parts[i])));
    jset(p, "time_breakdown_s", tb);
    const tp_memory *mm = &v->mem;
    json_t *mb = json_object();
    jset(mb, "stage", json_integer((json_int_t)mm->stage));
    for (size_t i = 0; i < TP_IO_NUM_MEM_PARTS; i++)
        jset(mb, tp_io_mem_parts[i].key, jnum(tp_io_part_value(mm, &tp_io_mem_parts[i]) / GIB));
    jset(mb, "total", jnum(mm->total_bytes / GIB));
    jset(mb, "capacity", jnum(mm->capacity_bytes / GIB));
    jset(p, "memory_breakdown_gib", mb);
    jset(o, "predicted", p);
    if (v->has_tput) {
        json_t *t = json_object();
        jset(t, "compared_as", json_string(v->tput_kind));
        jset(t, "basis", json_string(v->tput_basis));
        jset(t, "measured_tokens_per_s_per_gpu", jnum(v->meas_tps));
        jset(t, "predicted_tokens_per_s_per_gpu", jnum(v->pred_tps));
        jset(t, "rel_error", jnum(v->tput_err));
        jset(o, "throughput", t);
    } else {
        jset(o, "throughput", json_null());
    }
    if (v->has_mem) {
        json_t *m = json_object();
        jset(m, "metric", json_string(metric_name(v->metric)));
        jset(m, "unit", json_string(v->mem_unit));
        jset(m, "measured", jnum(v->meas_mem));
        jset(m, "predicted", jnum(v->pred_mem));
        jset(m, "rel_error", jnum(v->mem_err));
        jset(o, "memory", m);
    } else {
        jset(o, "memory", json_null());
    }
    json_t *f = json_object();
    jset(f, "expected", json_string(v->expect_fit ? "fits" : "out of memory"));
    jset(f, "predicted", json_string(v->pred_fit ? "fits" : "out of memory"));
    jset(f, "correct", json_boolean(v->expect_fit == v->pred_fit));
    jset(f, "stage", json_integer((json_int_t)v->fit_stage));
    jset(f, "predicted_gib", jnum(v->fit_total_bytes / GIB));
    jset(f, "capacity_gib", jnum(v->fit_capacity_bytes / GIB));
    jset(o, "fit", f);
    return o;
}

static int print_json(const char *file, const vrow *rows, size_t n)
{
    json_t *root = json_object(), *arr = json_array();
    if (!root || !arr) {
        json_decref(root);
        json_decref(arr);
        return CLI_EXIT_INTERNAL;
    }
    size_t evaluated = 0, fit_ok = 0;
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(arr, row_json(&rows[i]));
        if (rows[i].evaluated) {
            evaluated++;
            fit_ok += rows[i].expect_fit == rows[i].pred_fit;
        }
    }
    jset(root, "file", json_string(file));
    jset(root, "rows", arr);
    json_t *s = json_object();
    jset(s, "rows", json_integer((json_int_t)n));
    jset(s, "evaluated", json_integer((json_int_t)evaluated));
    jset(s, "not_evaluated", json_integer((json_int_t)(n - evaluated)));
    jset(s, "throughput", stats_json(abs_stats(rows, n, false)));
    jset(s, "memory", stats_json(abs_stats(rows, n, true)));
    json_t *f = json_object();
    jset(f, "rows", json_integer((json_int_t)evaluated));
    jset(f, "correct", json_integer((json_int_t)fit_ok));
    jset(f, "accuracy", jnum(evaluated ? (double)fit_ok / (double)evaluated : 0.0));
    jset(s, "fit", f);
    jset(root, "summary", s);
    int rc = cli_json_print(root);
    json_decref(root);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    const char *values[VF_COUNT];
    cli_extra extra = {vflags, VF_COUNT, values};
    const char *file = NULL, *json = NULL, *eff = NULL;
    tp_error err = {0};
    int argi = 1;
    while (argi < argc) {
        if (cli_parse_flags(argc, argv, &argi, &extra, &err) != TP_OK)
            return cli_error_print(&err, NULL);
        if (values[VF_JSON])
            json = values[VF_JSON];
        if (values[VF_EFF])
            eff = values[VF_EFF];
        if (argi < argc) {
            if (file) {
                cli_say("trainplan: error: validate takes one file (got \"%s\" and "
                        "\"%s\")\n",
                        file, argv[argi]);
                return CLI_EXIT_USAGE;
            }
            file = argv[argi++];
        }
    }
    if (!file) {
        cli_say("trainplan: error: validate needs a FILE.csv (run `trainplan validate "
                "--help`)\n");
        return CLI_EXIT_USAGE;
    }
    overrides ov = {.n = 0};
    if (eff && parse_overrides(eff, &ov, &err) != TP_OK)
        return cli_error_print(&err, NULL);

    tp_io_csv *csv = NULL;
    if (tp_io_csv_read(file, &csv, &err) != TP_OK) {
        cli_say("trainplan: error: %s\n", err.message);
        return cli_exit_code(err.code);
    }
    if (tp_io_runs_check(csv, &err) != TP_OK) {
        cli_say("trainplan: error: %s:1: %s\n", file, err.message);
        tp_io_csv_free(csv);
        return CLI_EXIT_USAGE;
    }
    vrow *rows = calloc(csv->num_rows ? csv->num_rows : 1, sizeof *rows);
    if (!rows) {
        tp_io_csv_free(csv);
        cli_say("trainplan: error: out of memory\n");
        return CLI_EXIT_INTERNAL;
    }
    for (size_t i = 0; i < csv->num_rows; i++)
        eval_row(csv, i, &ov, &rows[i]);
    int rc = CLI_EXIT_OK;
    if (json)
        rc = print_json(file, rows, csv->num_rows);
    else
        print_text(file, rows, csv->num_rows);
    free(rows);
    tp_io_csv_free(csv);
    return rc;
}
