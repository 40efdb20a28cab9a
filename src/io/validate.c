/* SPDX-License-Identifier: MIT */
/*
 * validate.c: the rows of a measured-runs file mapped to configurations,
 * evaluated and compared (validate.h); `trainplan validate` prints them.
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
 * rows that cannot be evaluated (TPU, missing architecture, an MLA model
 * with no preset or cells that disagree with it (mla_model), a gpt-oss
 * row whose cells disagree with its preset (arch_preset_model), no
 * layout, unknown GPU) are listed with the reason, never dropped. A row's
 * gpu_type names its GPU preset through one table (validate_gpu.c). What
 * a row's notes and its framework's recipes add beyond the layout cells
 * (node-limited routing, the flex dispatcher, eager experts, padded token
 * drop, low-precision storage, packed SFT, DualPipe) is read by
 * validate_recipes.c.
 */
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io.h"
#include "io_internal.h"
#include "fields.h"
#include "export.h" /* tp_io_config_flags */
#include "sbuf.h"
#include "validate.h"
#include "validate_row.h"
#include "recompute_modules.h"

/* ------------------------------------------------------------------ */
/* cells (cell and contains: validate_row.h)                          */
/* ------------------------------------------------------------------ */

static bool has(const rowref *r, const char *col)
{
    return cell(r, col)[0] != '\0';
}

/* Whole cell is an integer. */
/*
 * A whole, non-negative integer cell, read by the project's exact parser
 * (tp_io_parse_i64: no silent clamp of a value beyond int64, "1e3" is 1000,
 * "8.5" is not an integer). false when empty or not such a number: the
 * caller words what the row lacks.
 */
static bool cell_i64(const rowref *r, const char *col, int64_t *out)
{
    const char *s = cell(r, col);
    if (!*s)
        return false;
    tp_error e;
    return tp_io_parse_i64(col, s, 0, INT64_MAX, out, &e) == TP_OK;
}

/*
 * The reason for a row whose integer cell is there but is not a whole
 * number (cell_i64 said false): the parser's message, naming the column.
 * false when every one of cols is empty or whole (then it is "not stated").
 */
static bool cell_malformed(const rowref *r, tp_io_vrow *v, const char *const *cols, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = cell(r, cols[i]);
        int64_t x;
        tp_error e;
        if (*s && tp_io_parse_i64(cols[i], s, 0, INT64_MAX, &x, &e) != TP_OK) {
            snprintf(v->reason, sizeof v->reason, "%s", e.message);
            return true;
        }
    }
    return false;
}

/* Leading integer of a cell ("768 per expert" -> 768), positive, by the same parser. */
static bool cell_lead_i64(const rowref *r, const char *col, int64_t *out)
{
    const char *s = cell(r, col);
    char digits[24];
    size_t n = 0;
    while (isdigit((unsigned char)s[n]) && n < sizeof digits - 1) {
        digits[n] = s[n];
        n++;
    }
    if (n == 0 || isdigit((unsigned char)s[n]))
        return false; /* none, or more digits than any int64 */
    digits[n] = '\0';
    tp_error e;
    return tp_io_parse_i64(col, digits, 1, INT64_MAX, out, &e) == TP_OK;
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
    "measured_tokens_per_sec",   "measured_step_time_s", "measured_tflops_per_gpu",
    "peak_tflops_for_mfu",       "measured_mfu",         "measured_hfu",
    "measured_memory_gb_per_gpu"};

static bool cell_f64(const rowref *r, const char *col, double *out)
{
    const char *s = cell(r, col);
    if (!*s)
        return false;
    return tp_io_parse_f64_or0(col, s, MEASURED_MIN, MEASURED_MAX, out, NULL) == TP_OK;
}

/* ------------------------------------------------------------------ */
/* per-row evaluation                                                  */
/* ------------------------------------------------------------------ */

/* The library's profile of each (framework.c) and the names the
 * `framework` column of a runs file uses (tp_framework_name's). */
static const tp_framework fw_profile[FW_COUNT] = {
    [FW_GENERIC] = TP_FW_NONE,          [FW_MEGATRON21] = TP_FW_MEGATRON_LM,
    [FW_MCORE] = TP_FW_MEGATRON_CORE,   [FW_DEEPSPEED] = TP_FW_DEEPSPEED,
    [FW_TORCHTITAN] = TP_FW_TORCHTITAN, [FW_TORCHTUNE] = TP_FW_TORCHTUNE,
    [FW_MOSAIC] = TP_FW_LLM_FOUNDRY,    [FW_AUTOMODEL] = TP_FW_AUTOMODEL,
};

static void vnote(tp_io_vrow *v, const char *fmt, va_list ap)
{
    size_t len = strlen(v->assume);
    if (len + 4 >= sizeof v->assume)
        return;
    if (len > 0) {
        v->assume[len++] = ';';
        v->assume[len++] = ' ';
        v->assume[len] = '\0';
    }
    vsnprintf(v->assume + len, sizeof v->assume - len, fmt, ap);
}

static void note(tp_io_vrow *v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void note(tp_io_vrow *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vnote(v, fmt, ap);
    va_end(ap);
}

void tp_io__vnote(tp_io_vrow *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vnote(v, fmt, ap);
    va_end(ap);
}

/* The row's `framework` cell, by its profile name; FW_COUNT when the cell
 * is empty or names no profile (the caller then reads the id and source). */
static framework framework_cell(const rowref *r)
{
    int k = tp_framework_of(cell(r, "framework"));
    for (int i = 0; k >= 0 && i < FW_COUNT; i++)
        if (fw_profile[i] == (tp_framework)k)
            return (framework)i;
    return FW_COUNT;
}

static framework framework_of(const rowref *r)
{
    const char *id = cell(r, "id"), *src = cell(r, "source");
    framework named = framework_cell(r);
    if (named != FW_COUNT)
        return named;
    if (strncmp(id, "automodel", 9) == 0 || contains(src, "AutoModel"))
        return FW_AUTOMODEL; /* before NeMo: PyTorch-native, not Megatron-Core */
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

/*
 * MLA rows: the row's cells cannot carry the latent ranks, head dimensions,
 * shared expert, dense layers or MTP depth, so the model is a preset chosen
 * by the model name (mla_presets), and the row's own shape cells must agree
 * with it: a row that disagrees is not evaluated, with the cell named. The
 * preset is used as it stands (DeepSeek-V3's includes its MTP module).
 */
typedef struct mla_preset {
    const char *name_has; /* model_name contains this (case-insensitively) */
    const char *preset;
} mla_preset;

static const mla_preset mla_presets[] = {
    {"deepseek-v3", "deepseek-v3"},
    {"kimi k2", "kimi-k2"},
    {"kimi-k2", "kimi-k2"},
};

/* The row's integer cell (its leading integer when lead) against the
 * preset's value; true when the cell is blank or agrees. */
static bool preset_cell_agrees(const rowref *r, const char *col, bool lead, int64_t want,
                               const char *kind, tp_io_vrow *v)
{
    int64_t got = 0;
    if (!has(r, col))
        return true;
    bool ok = lead ? cell_lead_i64(r, col, &got) : cell_i64(r, col, &got);
    if (ok && got == want)
        return true;
    snprintf(v->reason, sizeof v->reason, "%s \"%s\" disagrees with the %s's %lld", col,
             cell(r, col), kind, (long long)want);
    return false;
}

/* The row's shape cells against the preset m (kind names it in the reason). */
static bool preset_cells_agree(const rowref *r, const tp_model *m, const char *kind, tp_io_vrow *v)
{
    return preset_cell_agrees(r, "layers", false, m->num_layers, kind, v) &&
           preset_cell_agrees(r, "hidden", false, m->hidden, kind, v) &&
           preset_cell_agrees(r, "heads", false, m->num_heads, kind, v) &&
           preset_cell_agrees(r, "vocab", false, m->vocab, kind, v) &&
           preset_cell_agrees(r, "moe_experts", true, m->num_experts, kind, v) &&
           preset_cell_agrees(r, "moe_topk", false, m->topk, kind, v);
}

/* with_mtp false: the framework's model class has no MTP module (NeMo
 * AutoModel's DeepseekV3ForCausalLM, components/models/deepseek_v3/model.py
 * @01926a5c443b, builds none), so the preset's is dropped. */
static bool mla_model(const rowref *r, tp_io_vrow *v, tp_model *m, bool with_mtp)
{
    const char *name = cell(r, "model_name");
    const char *preset = NULL;
    for (size_t i = 0; i < sizeof mla_presets / sizeof mla_presets[0] && !preset; i++)
        if (contains(name, mla_presets[i].name_has))
            preset = mla_presets[i].preset;
    if (!preset) {
        snprintf(v->reason, sizeof v->reason,
                 "multi-head latent attention (MLA) with no preset for \"%s\" (the row cannot "
                 "state the latent ranks)",
                 name);
        return false;
    }
    tp_error err;
    memset(&err, 0, sizeof err);
    if (tp_io_model_load(preset, m, &err) != TP_OK) {
        snprintf(v->reason, sizeof v->reason, "preset %s: %.200s", preset, err.message);
        return false;
    }
    if (!preset_cells_agree(r, m, "MLA preset", v))
        return false;
    bool had_mtp = m->mtp_layers > 0;
    if (!with_mtp)
        m->mtp_layers = 0;
    note(v, "model: preset %s (MLA; the row's shape cells agree)%s", preset,
         !had_mtp   ? ""
         : with_mtp ? ", with its MTP module"
                    : ", without its MTP module (AutoModel's DeepseekV3ForCausalLM has none)");
    return true;
}

/*
 * Models whose name the family rules would misread: "gpt-oss-120b" contains
 * "gpt", which means GPT-2/3 (LayerNorm, a two-matrix GeLU MLP, learned
 * positions, tied embeddings, head_dim = hidden/heads = 45), where gpt-oss
 * has RMSNorm, SwiGLU experts, RoPE, untied embeddings, head_dim 64, a sink
 * per head and a 128-token window on every other layer, none of which the
 * row's cells can state. Such rows take the preset (HF config), as MLA rows
 * do, and their shape cells must agree with it.
 */
static const mla_preset arch_presets[] = {
    {"gpt-oss-120b", "gpt-oss-120b"},
    {"gpt-oss-20b", "gpt-oss-20b"},
};

/* The preset for a row's model_name, or NULL. */
static const char *arch_preset_of(const char *name)
{
    for (size_t i = 0; i < sizeof arch_presets / sizeof arch_presets[0]; i++)
        if (contains(name, arch_presets[i].name_has))
            return arch_presets[i].preset;
    return NULL;
}

static bool arch_preset_model(const rowref *r, const char *preset, tp_io_vrow *v, tp_model *m)
{
    tp_error err;
    memset(&err, 0, sizeof err);
    if (tp_io_model_load(preset, m, &err) != TP_OK) {
        snprintf(v->reason, sizeof v->reason, "preset %s: %.200s", preset, err.message);
        return false;
    }
    if (!preset_cells_agree(r, m, "preset", v) ||
        !preset_cell_agrees(r, "kv_heads", false, m->num_kv_heads, "preset", v) ||
        !preset_cell_agrees(r, "ffn_hidden", true, m->moe_ffn_hidden, "preset", v))
        return false;
    note(v,
         "model: preset %s (its architecture is not the GPT family its name suggests; the "
         "row's shape cells agree)",
         preset);
    return true;
}

/* Build the model from the row; false (with v->reason) when it cannot. */
static bool build_model(const rowref *r, framework fw, tp_io_vrow *v, tp_model *m)
{
    memset(m, 0, sizeof *m);
    const char *name = cell(r, "model_name");
    snprintf(m->name, sizeof m->name, "%s", name);
    if (contains(cell(r, "kv_heads"), "MLA"))
        return mla_model(r, v, m, fw != FW_AUTOMODEL);
    const char *arch_preset = arch_preset_of(cell(r, "model_name"));
    if (arch_preset)
        return arch_preset_model(r, arch_preset, v, m);
    int64_t L, h, a;
    if (!cell_i64(r, "layers", &L) || !cell_i64(r, "hidden", &h) || !cell_i64(r, "heads", &a)) {
        static const char *const arch[] = {"layers", "hidden", "heads"};
        if (cell_malformed(r, v, arch, 3))
            return false;
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
            m->qk_norm = TP_QK_NORM_HEAD;
            note(v, "head_dim 128, q and k normed per head (official Qwen3 config)");
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
        /* Megatron's --max-position-embeddings, the sequence in these recipes */
        if (cell_i64(r, "seq_len", &m->max_positions) && m->max_positions > 0)
            note(v, "learned positions: a table of %lld (the sequence length)",
                 (long long)m->max_positions);
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

/* Megatron-Core recompute modules a selective row names in parentheses,
 * "selective (layernorm,mla_up_proj)" (DeepSeek-V3: its report's section
 * 3.3.1); true when none are named. False (with v->reason) on a bad name. */
static bool recompute_modules_of(const char *s, tp_io_vrow *v, unsigned *out)
{
    *out = 0u;
    const char *open = strchr(s, '('), *close = open ? strchr(open, ')') : NULL;
    if (!open || !close || !contains(s, "selective"))
        return true;
    char list[96];
    snprintf(list, sizeof list, "%.*s", (int)(close - open - 1), open + 1);
    tp_error e;
    if (tp_io_recompute_modules_parse("--recompute-modules", list, out, &e) != TP_OK) {
        snprintf(v->reason, sizeof v->reason, "%s", e.message);
        return false;
    }
    return true;
}

/* Activation offload a row's recompute cell states in Megatron-Core's
 * words, "none; cpu_offloading_num_layers=40" (Megatron-Bridge's GB200
 * Llama 3 70B presets): that many layers' activations go to the host
 * (tp_train.offload_act_layers; config.c checks the layout allows it). */
static void act_offload_of(const char *s, tp_io_vrow *v, tp_train *t)
{
    const char *key = strstr(s, "cpu_offloading_num_layers=");
    long long n = key ? strtoll(key + strlen("cpu_offloading_num_layers="), NULL, 10) : 0;
    if (n <= 0 || n > TP_MAX_LAYERS)
        return;
    t->offload_act_layers = n;
    note(v,
         "activations of %lld layers offloaded to the host (the recipe's "
         "cpu_offloading_num_layers)",
         n);
}

static const char *recompute_name(tp_recompute rc)
{
    return rc == TP_RECOMPUTE_FULL ? "full" : rc == TP_RECOMPUTE_SELECTIVE ? "selective" : "none";
}

/*
 * The training setup of a row, in steps. Each reads its columns and writes
 * its part of the tp_train (or tp_options); where the row is silent it
 * fills the framework's or the common default and says so with note(), in
 * this order, which is the order the assumptions are listed in.
 */

/* The parallel layout, sequence and node size. The GPU count is the
 * layout's product (a row's #GPUs that disagrees is overruled and said
 * so): the library needs num_gpus = tp * pp * dp * cp. NVL72 rows are one
 * 72-GPU NVLink domain. False (with v->reason) when the row has no usable
 * layout or sequence length. */
static bool train_layout(const rowref *r, tp_io_vrow *v, tp_train *t)
{
    int64_t tp, pp, dp, cp = 1, ep = 1, etp = 0, gpus = 0, seq;
    if (!cell_i64(r, "tp", &tp) || !cell_i64(r, "pp", &pp) || !cell_i64(r, "dp", &dp) || tp < 1 ||
        pp < 1 || dp < 1) {
        static const char *const layout[] = {"tp", "pp", "dp"};
        if (cell_malformed(r, v, layout, 3))
            return false;
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
    /* optional column: the expert TP of MoE parallel folding; empty means
     * Megatron's default, etp = tp */
    if (has(r, "etp") && (!cell_i64(r, "etp", &etp) || etp < 1))
        etp = 0;
    const int64_t max_size = TP_MAX_GPUS; /* the library's bound on GPUs */
    if (tp > max_size || pp > max_size || dp > max_size || cp > max_size || ep > max_size ||
        etp > max_size || (double)tp * (double)pp * (double)dp * (double)cp > (double)max_size) {
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
    t->etp = etp;
    if (etp > 0 && etp != tp)
        note(v, "expert TP %lld apart from TP %lld (etp column: MoE parallel folding, EDP %lld)",
             (long long)etp, (long long)tp, (long long)tp_train_edp(t));
    t->seq_len = seq;

    int64_t gpn = 0;
    if (contains(cell(r, "interconnect"), "NVL72")) {
        t->gpus_per_node = 72;
        note(v, "NVL72: one 72-GPU NVLink domain");
    } else if (cell_i64(r, "gpus_per_node", &gpn) && gpn > 0) {
        t->gpus_per_node = gpn;
    }

    assert(t->num_gpus == t->tp * t->pp * dp * t->cp);
    return true;
}

/* Compute precision: fp8, fp16, else bf16 (said so when the cell is empty). */
static void train_precision(const rowref *r, tp_io_vrow *v, tp_train *t)
{
    const char *prec = cell(r, "precision");
    if (contains(prec, "fp8") || contains(prec, "float8"))
        t->precision = TP_PREC_FP8;
    else if (contains(prec, "fp16"))
        t->precision = TP_PREC_FP16;
    else
        t->precision = TP_PREC_BF16;
    if (!prec[0])
        note(v, "precision not stated: bf16");
}

/* The value a row's cited recipe gives a layout knob where its notes say
 * the published table prints another: "VP 12 and MBS 1 (default) where
 * the table prints VP 24 and MBS 2", "vp 12 (the table prints VP 24)".
 * The clause before "table prints", back to the last comma or semicolon,
 * names the recipe's values; knob is "VP" or "MBS" (any case). The recipe
 * is what ran: Megatron-Bridge's archive reprints the previous release's
 * layout cells (the rows' notes cite the preset at the release branch).
 * 0: the notes state none. */
static int64_t recipe_over_table(const rowref *r, const char *knob)
{
    const char *notes = cell(r, "notes");
    const char *end = strstr(notes, "table prints");
    if (!end)
        return 0;
    const char *seg = end;
    while (seg > notes && seg[-1] != ',' && seg[-1] != ';')
        seg--;
    size_t n = strlen(knob);
    for (const char *p = seg; p + n < end; p++) {
        bool word = p == notes || !isalnum((unsigned char)p[-1]);
        if (!word || strncasecmp(p, knob, n) != 0 || p[n] != ' ')
            continue;
        char *num_end;
        long long x = strtoll(p + n + 1, &num_end, 10);
        if (num_end > p + n + 1 && x > 0 && x <= TP_MAX_BATCH)
            return x;
    }
    return 0;
}

/* The local batch a row's framework runs the pipeline schedule on (tp_train
 * .local_batch), 0 when none: torchtitan's micro_batch column holds it
 * (training.local_batch_size; its train loop runs pp_schedule.step once
 * per accumulation step, train.py at 9dec370); NeMo AutoModel's rows note
 * it as "LBS=N" (step_scheduler.local_batch_size; recipes/llm/benchmark.py
 * runs _forward_backward_step, one schedule run under PP, ga_steps times
 * per optimizer step, @01926a5c443b). */
static int64_t local_of(const rowref *r, framework fw, int64_t mb_cell)
{
    if (fw == FW_TORCHTITAN)
        return mb_cell;
    const char *lbs = fw == FW_AUTOMODEL ? strstr(cell(r, "notes"), "LBS=") : NULL;
    long long n = lbs ? strtoll(lbs + 4, NULL, 10) : 0;
    return n > 0 && n <= TP_MAX_BATCH ? (int64_t)n : 0;
}

/* Set the local batch where it makes more than one schedule run per step
 * under PP (where the runs change the step: each fills and drains the
 * pipeline), and say so; a local batch that does not divide the step is
 * left unset with a note. */
static void train_local_batch(tp_io_vrow *v, tp_train *t, int64_t local)
{
    int64_t dp = tp_train_dp(t);
    if (local <= 0 || t->pp <= 1 || dp < 1)
        return;
    int64_t per_rank = t->global_batch / dp;
    if (local % t->micro_batch != 0 || per_rank % local != 0) {
        note(v,
             "local batch %lld does not divide the global batch per DP rank %lld in "
             "micro-batches of %lld: one schedule run per step",
             (long long)local, (long long)per_rank, (long long)t->micro_batch);
        return;
    }
    if (per_rank / local < 2)
        return;
    t->local_batch = local;
    note(v, "local batch %lld: %lld schedule runs per step, each filling and draining the pipeline",
         (long long)local, (long long)(per_rank / local));
}

/* Micro-batch, accumulation and global batch. torchtitan's micro_batch
 * column holds its local (per-DP-rank) batch; elsewhere a missing global
 * batch means no accumulation. */
static void train_batch(const rowref *r, framework fw, tp_io_vrow *v, tp_train *t)
{
    int64_t pp = t->pp, dp = t->num_gpus / (t->tp * t->pp * t->cp);
    int64_t mb = 1, gb = 0;
    if (!cell_i64(r, "micro_batch", &mb) || mb < 1 || mb > TP_MAX_BATCH) {
        mb = 1;
        note(v, "micro-batch not stated: 1");
    }
    int64_t recipe_mb = recipe_over_table(r, "MBS");
    if (recipe_mb > 0 && recipe_mb != mb) {
        note(v, "micro-batch %lld as the cited recipe sets (the table prints %lld)",
             (long long)recipe_mb, (long long)mb);
        mb = recipe_mb;
    }
    bool gb_given = cell_i64(r, "global_batch", &gb) && gb > 0;
    int64_t local = local_of(r, fw, mb);
    if (fw == FW_TORCHTITAN && pp > 1) {
        /* micro_batch holds torchtitan's local (per-DP-rank) batch, split
         * into as many micro-batches as pipeline stages (its default) */
        if (local % pp == 0) {
            mb = local / pp;
            note(v,
                 "local batch %lld split into %lld micro-batches of %lld (torchtitan default: "
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
    train_local_batch(v, t, local);
}

/* Interleaving (VPP) and the pipeline split: when the embedding and the
 * loss each take a layer's slot (the row says so, or interleaving does
 * not divide the layers evenly), the end stages hold one layer fewer. */
static void train_pipeline(const rowref *r, tp_io_vrow *v, tp_config *c)
{
    tp_train *t = &c->train;
    const char *notes = cell(r, "notes");
    int64_t pp = t->pp;
    int64_t vv = 1;
    bool vv_given = cell_i64(r, "interleave_v", &vv);
    int64_t recipe_vv = pp > 1 ? recipe_over_table(r, "VP") : 0;
    if (recipe_vv > 0 && recipe_vv != vv) {
        note(v, "interleaving %lld as the cited recipe sets (the table prints %lld)",
             (long long)recipe_vv, (long long)(vv_given ? vv : 1));
        vv = recipe_vv;
        vv_given = true;
    }
    if (vv_given && vv > 1 && pp > 1) {
        t->schedule = TP_SCHED_INTERLEAVED;
        t->vpp = vv;
    }
    int64_t L = c->model.num_layers;
    bool embed_slot = contains(notes, "embedding given its own PP slot");
    if (pp > 1 && (embed_slot || (t->vpp > 1 && L % (pp * t->vpp) != 0))) {
        /* the embedding and the loss each take a layer's slot in the split */
        if ((L + 2) % pp == 0 && (L + 2) / pp >= 2) {
            t->first_stage_layers = t->last_stage_layers = (L + 2) / pp - 1;
            note(v,
                 "pipeline split counts the embedding and the loss as a layer each: %lld "
                 "layers on the end stages",
                 (long long)t->first_stage_layers);
        }
    }
}

/* Sequence parallelism (on with TP unless the row says no) and the ZeRO
 * stage (FSDP = 3); the Megatron-Core/NeMo recipes use the distributed
 * optimizer (ZeRO-1) even when the row does not say. */
static void train_sharding(const rowref *r, framework fw, tp_io_vrow *v, tp_train *t)
{
    int64_t tp = t->tp;
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
}

/* Gradients, optimizer, kernels and overlap: what each framework does by
 * default and the rows do not state (per-case sources in the comments). */
static void framework_conventions(const rowref *r, framework fw, tp_io_vrow *v, tp_config *c)
{
    tp_train *t = &c->train;
    tp_options *o = &c->opts;
    const char *id = cell(r, "id"), *notes = cell(r, "notes");
    int64_t tp = t->tp;
    /* the framework's profile first (framework.c), then what the row says */
    tp_framework_apply(fw_profile[fw], o);
    switch (fw) {
    case FW_MEGATRON21:
        t->grad_dtype = TP_DTYPE_FP32; /* fp32 main grads, all-reduced in fp32 */
        t->flash_attn = false;         /* 2021: fused softmax, no FlashAttention */
        t->dropout = true;             /* GPT dropout 0.1 */
        t->pad_vocab_to = 128 * tp;
        o->dp_comm_overlap = contains(notes, "DDP impl torch");
        o->ce_bytes_per_logit = 4.0; /* vocab-parallel CE: fp32 logits only */
        break;
    case FW_DEEPSPEED:
        t->grad_dtype = TP_DTYPE_FP32; /* BF16_Optimizer fp32 gradient accumulation */
        t->flash_attn = false;
        t->pad_vocab_to = 0;        /* 250880 is already padded */
        o->dp_comm_overlap = false; /* pipeline engine reduces after the flush */
        /* BF16_Optimizer keeps the bf16 .grad beside its flat fp32 gradient
         * buffer (2 B/param, bf16_optimizer.py); the nvidia-smi readings of
         * the ten BLOOM rows sit a further 3.0 B/param above the model
         * (least squares, rms 2.1 GB): memory the allocator holds after
         * the optimizer flattens and re-partitions the parameters (cause
         * not verified). Fitted on one source: stated in docs/ACCURACY.md. */
        o->extra_param_bytes = 5.0;
        o->pp_scatter_gather = false; /* the pipeline engine sends whole activations */
        o->ce_bytes_per_logit = 4.0;  /* Megatron vocab-parallel CE */
        note(v, "DeepSpeed pipeline engine: gradient reduction after the pipeline flush, "
                "not overlapped; no FlashAttention (2022); BF16_Optimizer buffers 5 B/param "
                "unsharded (2 from its code, 3 fitted on these rows)");
        break;
    case FW_MCORE: {
        /* fp32 main grads (Megatron-Core's grad buffer follows
         * grad_reduce_in_fp32); Megatron-Bridge's performance configs turn
         * it off for every model (scripts/performance: llama3_70b_llm_
         * pretrain.yaml @ v0.1.0rc4, set_*_common_configs @ v0.2.0 and
         * v0.3.0): bf16 buffers, reduced in bf16. */
        bool bridge = contains(cell(r, "source"), "Megatron-Bridge");
        t->grad_dtype = bridge ? TP_DTYPE_BF16 : TP_DTYPE_FP32;
        if (bridge)
            note(v, "bf16 gradients, reduced in bf16 (grad_reduce_in_fp32 false in "
                    "Megatron-Bridge's performance configs)");
        /* Megatron-Bridge's FP8 recipes keep the weights in fp8 and gather
         * them in fp8: fp8_param_gather = True in bf16_with_fp8_delayed_
         * scaling_mixed, bf16_with_fp8_current_scaling_mixed and
         * bf16_with_mxfp8_mixed (src/megatron/bridge/training/
         * mixed_precision.py @ v0.1.0rc4, v0.2.0, v0.3.0), which its
         * scripts/performance get_precision_config returns unchanged but
         * for first_last_layers_bf16 (its blockwise and NVFP4 recipes do
         * not; no row ran them). */
        if (bridge && t->precision == TP_PREC_FP8 && t->fp8_recipe != TP_FP8_NVFP4 &&
            t->zero >= 1 && !t->fp8_param_gather) {
            t->fp8_param_gather = true;
            note(v, "fp8 weights, gathered in fp8 (fp8_param_gather in Megatron-Bridge's FP8 "
                    "recipes)");
        }
        t->pad_vocab_to = 128 * tp;
        o->tp_comm_overlap = tp > 1;
        o->tp_overlap_chunked = true; /* TE userbuffers, as framework.c */
        o->ce_bytes_per_logit = 4.0;  /* vocab-parallel CE: fp32 logits only */
        /* Megatron-Bridge's performance scripts fuse the loss with
         * TransformerEngine's cross-entropy (cross_entropy_fusion_impl
         * "te": scripts/performance llama3_*.yaml @ v0.1.0rc4, helpers.py
         * @ v0.2.0, utils/overrides.py @ v0.3.0; cross_entropy_loss_fusion
         * True in GPTModelProvider), which takes the bf16 logits, computes
         * the loss in fp32 in registers and writes the gradient into the
         * logits in place (TE v2.9 pytorch/cross_entropy.py,
         * triton/cross_entropy.py): 2 B per logit. */
        if (bridge) {
            o->ce_bytes_per_logit = 2.0;
            note(v, "TransformerEngine's fused cross-entropy (cross_entropy_fusion_impl te): the "
                    "bf16 logits, the gradient written in place");
        }
        if (tp > 1 && !contains(notes, "tp-comm-overlap"))
            note(v, "TP communication overlap on (NeMo/Megatron-Bridge performance recipes)");
        break;
    }
    case FW_TORCHTITAN:
        t->grad_dtype = TP_DTYPE_FP32; /* FSDP reduce in fp32 */
        o->tp_comm_overlap = tp > 1 && contains(notes, "AsyncTP") && !contains(id, "vanilla");
        o->eager_elementwise = contains(notes, "eager"); /* "FSDP only, eager" */
        if (o->eager_elementwise)
            note(v, "eager (no torch.compile): element-wise ops as PyTorch kernels, one "
                    "pass over memory each (docs/model.md 3)");
        o->sac_ops = true; /* torchtitan's selective mode is per-op SAC */
        /* Attention: torchtitan's Llama calls F.scaled_dot_product_attention
         * (models/llama/model.py:209 at 9dec370; at e7c0cae through
         * models/attention.py ScaledDotProductAttention, whose backends are
         * FLASH_ATTENTION, EFFICIENT_ATTENTION, MATH, with CUDNN_ATTENTION
         * first only on compute capability 10.0). PyTorch's flash backend is
         * FlashAttention-2, and cuDNN attention has been opt-in in PyTorch
         * since pytorch/pytorch#138522 (2024-10; the benchmark's torch is
         * 1963fc8 of 2024-12-23). So on these H100 and H200 the kernel is the
         * one written for Ampere. torchtitan puts cuDNN first on every GPU
         * from 6a3a9da95 (2025-10-09): the framework profile (framework.c)
         * describes that current torchtitan, these rows predate it. */
        o->attn_ampere_kernel = true;
        note(v, "attention: PyTorch SDPA's flash backend (FlashAttention-2, written for "
                "Ampere) on Hopper, as torchtitan before 6a3a9da95 selects it: 1/1.75 of "
                "the native rate (FlashAttention-3 paper)");
        /* training.compile compiles the loss too from commit bbb1b616e
         * (2025-04-02, components/loss.py build_cross_entropy_loss; off at
         * the 2024 benchmark's 9dec370, train.py: "compiling loss function
         * causes CUDA errors"). Inductor fuses the fp32 upcast, log-softmax
         * and their backward: the bf16 logits it saves (2 B) and their bf16
         * gradient (2 B) are the loss's peak, no fp32 copy. */
        if (contains(notes, "loss compiled")) {
            o->ce_bytes_per_logit = 4.0;
            o->ce_bytes_per_logit_tp = 4.0;
            note(v, "loss compiled with the model (torchtitan since bbb1b616e): bf16 logits "
                    "and their bf16 gradient, 4 B per logit");
        } else if (tp > 1) {
            /* loss parallel, on by default at TP > 1 (parallel_dims.py
             * loss_parallel_enabled at 9dec370): the framework profile's
             * ce_bytes_per_logit_tp, 16 (framework.c) */
            note(v, "loss parallel (torchtitan's default at TP > 1): DTensor cross-entropy, "
                    "16 B per logit");
        }
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
                    "Hopper: 1/1.75 of the native rate (FlashAttention-3 paper)");
        break;
    case FW_AUTOMODEL:
        /* What the benchmark configs behind these rows state
         * (NVIDIA-NeMo/Automodel examples/benchmark/configs/NAME_te_deepep.yaml
         * @01926a5c443b) and the code they run. The model classes build
         * their weights in bf16 (initialize_weights: self.to(torch.bfloat16),
         * components/models/{qwen3_moe,deepseek_v3,gpt_oss}/model.py) and the
         * optimizer is torch.optim.Adam on them, whose moments take the
         * parameters' dtype: no fp32 master copy, bf16 moments, and the
         * gradients FSDP2 hands back are cast to the parameters' bf16 (its
         * reduce-scatter runs in fp32, MixedPrecisionPolicy(reduce_dtype=
         * float32) in components/moe/parallelizer.py apply_fsdp, for the
         * non-expert weights only: charged at 2 B like the rest). */
        t->optimizer.master_weights = false;
        t->optimizer.moment_dtype = TP_DTYPE_BF16;
        t->grad_dtype = TP_DTYPE_BF16;
        /* loss_fn MaskedCrossEntropy(fp32_upcast: false): F.cross_entropy
         * on the bf16 logits, which holds the logits, the log-probabilities
         * and their gradient at 2 B each: the 12 B of the upcast loss at
         * half width */
        o->ce_bytes_per_logit = 6.0;
        /* backend attn: flex on the gpt-oss rows (PyTorch FlexAttention, a
         * Triton kernel of the FlashAttention-2 generation), te elsewhere */
        o->attn_ampere_kernel = contains(notes, "FlexAttn");
        note(v,
             "NeMo AutoModel benchmark config (examples/benchmark/configs @01926a5c443b): "
             "PyTorch FSDP2 (not Megatron-Core); bf16 weights and torch.optim.Adam on them "
             "(bf16 moments and gradients, no fp32 master); MaskedCrossEntropy without fp32 "
             "upcast (6 B per logit); %s attention",
             o->attn_ampere_kernel ? "FlexAttention (FlashAttention-2-class kernel)" : "TE");
        /* autopipeline (interleaved1f1b, layers_per_stage 2): PyTorch's
         * pipelining puts the layers on pp*vpp virtual stages in order, the
         * first L mod (pp*vpp) one layer more (config.c header) */
        t->pp_split = TP_PP_SPLIT_IN_ORDER;
        if (t->pp > 1)
            note(v,
                 "pipeline split in order over pp*vpp = %lld virtual stages (AutoModel's "
                 "pipelining; heaviest stage 0: %lld layers)",
                 (long long)(t->pp * t->vpp),
                 (long long)tp_stage_layers(t, c->model.num_layers, 0));
        break;
    case FW_GENERIC:
    case FW_COUNT:
    default: break;
    }
}

/* Build training setup and options; false (with v->reason) when it cannot.
 * *rc_given: the row states its recompute (else the caller picks the least
 * that fits). */
static bool build_train(const rowref *r, framework fw, tp_io_vrow *v, tp_config *c, bool *rc_given)
{
    tp_train_default(&c->train);
    tp_options_default(&c->opts);
    tp_io_host_defaults(&c->gpu, &c->opts);
    if (!train_layout(r, v, &c->train))
        return false;
    train_precision(r, v, &c->train);
    train_batch(r, fw, v, &c->train);
    train_pipeline(r, v, c);
    train_sharding(r, fw, v, &c->train);
    tp_recompute rc;
    *rc_given = recompute_of(cell(r, "recompute"), &rc);
    c->train.recompute = *rc_given ? rc : TP_RECOMPUTE_NONE;
    if (!recompute_modules_of(cell(r, "recompute"), v, &c->train.recompute_modules))
        return false;
    act_offload_of(cell(r, "recompute"), v, &c->train);
    framework_conventions(r, fw, v, c);
    return true;
}

/*
 * Memory metric of the row, from the words of its memory_metric cell (the
 * sources phrase them freely): nvidia-smi (or NVML) used memory; PyTorch's
 * max reserved (torch.cuda.max_memory_reserved, reserved_bytes.all.peak,
 * torchtitan's logged memory); peak active (active_bytes.all.peak); max
 * allocated (torch.cuda.max_memory_allocated, allocated_bytes.all.peak).
 * The first that matches in that order decides: a reserved figure quoted
 * beside an allocated one is the larger, reserved. Anything else is NONE,
 * and the row says so (memory_metric_note).
 */
static tp_io_mem_metric metric_of(const char *s, const char **unit)
{
    *unit = contains(s, "GiB") ? "GiB" : "GB";
    if (contains(s, "nvidia-smi") || contains(s, "nvml"))
        return TP_IO_MEM_NVSMI;
    if (contains(s, "reserved"))
        return TP_IO_MEM_RESERVED;
    if (contains(s, "active"))
        return TP_IO_MEM_ACTIVE;
    if (contains(s, "allocated"))
        return TP_IO_MEM_ALLOCATED;
    return TP_IO_MEM_NONE;
}

const char *tp_io_mem_metric_name(tp_io_mem_metric m)
{
    switch (m) {
    case TP_IO_MEM_NVSMI: return "nvidia-smi used";
    case TP_IO_MEM_RESERVED: return "torch reserved";
    case TP_IO_MEM_ACTIVE: return "torch peak active";
    case TP_IO_MEM_ALLOCATED: return "torch max allocated";
    case TP_IO_MEM_NONE: break;
    }
    return "";
}

/* Our prediction of the row's memory metric, bytes. */
static double predicted_metric(const tp_memory *m, tp_io_mem_metric metric)
{
    double total = m->total_bytes;
    switch (metric) {
    case TP_IO_MEM_RESERVED: return total - m->framework_bytes - m->comm_buffers_bytes;
    case TP_IO_MEM_ACTIVE:
    case TP_IO_MEM_ALLOCATED:
        /* live tensors only: no context, NCCL buffers or allocator cache
         * (allocated and active differ by blocks freed but not yet reused
         * by their stream, which the model does not track) */
        return total - m->framework_bytes - m->comm_buffers_bytes - m->fragmentation_bytes;
    case TP_IO_MEM_NVSMI:
    case TP_IO_MEM_NONE: break;
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
static bool measured_throughput(const rowref *r, framework fw, const tp_config *c, tp_io_vrow *v)
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
    snprintf(v->tput_basis, sizeof v->tput_basis, "from %.1f %s TFLOP/s/GPU / %.4g FLOP/token (%s)",
             tflops, hfu ? "hardware" : "model", fpt,
             hfu        ? "Megatron HFU 96BsLh^2(1+s/6h+V/16Lh), no causal discount"
             : unpadded ? "NeMo model FLOPs, no causal discount, unpadded V"
                        : "Megatron model FLOPs, no causal discount");
    return true;
}

/* Evaluate one row into v. */
/* The table entry of the row's GPU; NULL (with v->reason) when it is not
 * a GPU trainplan models. */
static const tp_io__vgpu *row_gpu_entry(const rowref *r, tp_io_vrow *v)
{
    const char *gtype = cell(r, "gpu_type");
    const tp_io__vgpu *ge = tp_io__validate_gpu_of(gtype);
    if (ge && ge->preset)
        return ge;
    snprintf(v->reason, sizeof v->reason, "%s: not a GPU trainplan models",
             gtype[0] ? gtype : "no GPU type");
    if (contains(gtype, "TPU"))
        snprintf(v->reason, sizeof v->reason, "TPU, not a GPU: out of the planner's domain");
    return NULL;
}

/* The row's GPU: the table's preset, the row's interconnect where it
 * differs from the preset's NIC, then the --eff overrides. False (with
 * v->reason) when the preset does not load. */
static bool row_gpu(const rowref *r, const tp_io__vgpu *ge, const tp_io_eff_overrides *ov,
                    tp_io_vrow *v, tp_gpu *g)
{
    const char *gtype = cell(r, "gpu_type");
    tp_error err = {0};
    if (tp_io_gpu_load(ge->preset, g, &err) != TP_OK) {
        snprintf(v->reason, sizeof v->reason, "GPU preset %s: %.150s", ge->preset, err.message);
        return false;
    }
    if (ov && ov->fitted_gemm)
        tp_io_gpu_fitted_gemm(g);
    if (contains(gtype, "capacity not stated"))
        note(v, "GPU capacity not stated: 80 GB");
    if (contains(cell(r, "interconnect"), "Omni-Path")) {
        /* Jean Zay A100 nodes: 4 x 100 Gb/s Omni-Path per 8 GPUs (recalled). */
        g->inter_bw_bytes_per_s = 6.25e9;
        note(v, "Omni-Path: 4 x 100 Gb/s per 8-GPU node = 6.25 GB/s per GPU (recalled)");
    } else if (contains(cell(r, "interconnect"), "1600 Gbps")) {
        g->inter_bw_bytes_per_s = 25e9; /* 1600 Gb/s per 8-GPU node */
    }
    tp_io_eff_overrides_apply(ov, g);
    snprintf(v->gpu, sizeof v->gpu, "%s", g->name);
    return true;
}

/* A present measured cell that is not a measurement refuses the row
 * (measured_cols above); false with v->reason. */
static bool measured_cells_ok(const rowref *r, tp_io_vrow *v)
{
    for (size_t i = 0; i < sizeof measured_cols / sizeof measured_cols[0]; i++) {
        const char *s = cell(r, measured_cols[i]);
        double x;
        tp_error e;
        if (*s &&
            tp_io_parse_f64_or0(measured_cols[i], s, MEASURED_MIN, MEASURED_MAX, &x, &e) != TP_OK) {
            snprintf(v->reason, sizeof v->reason, "%s", e.message);
            return false;
        }
    }
    return true;
}

/* validate --moe-a2a-overlap: the EP all-to-all overlap on a Megatron-Core
 * row whose layout Megatron-Core allows it on (config.c check_a2a_overlap);
 * row_predict turns it off again if it has to pick full recompute. */
static void a2a_overlap_where_allowed(tp_config *c)
{
    tp_error e;
    c->opts.moe_a2a_overlap = true;
    if (tp_config_validate(c, &e) != TP_OK)
        c->opts.moe_a2a_overlap = false;
}

/* Evaluate the row's configuration; when the row does not state its
 * recompute, the least that fits (none, selective, full) is what a user
 * of the framework would have run. False (with v->reason) when libtp
 * rejects the configuration. */
static bool row_predict(tp_config *c, bool rc_given, tp_io_vrow *v, tp_result *res)
{
    tp_error err = {0};
    tp_status st = tp_eval(c, res, &err);
    if (st == TP_OK && !rc_given) {
        static const tp_recompute order[] = {TP_RECOMPUTE_NONE, TP_RECOMPUTE_SELECTIVE,
                                             TP_RECOMPUTE_FULL};
        for (size_t i = 1; i < 3 && !res->memory.fits; i++) {
            c->train.recompute = order[i];
            if (order[i] == TP_RECOMPUTE_FULL) /* Megatron-Core refuses the overlap with it */
                c->opts.moe_a2a_overlap = false;
            st = tp_eval(c, res, &err);
            if (st != TP_OK)
                break;
        }
        if (st == TP_OK)
            note(v, "recompute not stated: %s (the least that fits)",
                 recompute_name(c->train.recompute));
    }
    if (st != TP_OK) {
        snprintf(v->reason, sizeof v->reason, "configuration rejected: %.40s: %.150s",
                 tp_io_field_word(err.path, true), err.message);
        return false;
    }
    return true;
}

/* The comparisons: throughput as tokens/s per GPU and memory in the row's
 * metric and unit, each only where the row measured it. BLOOM's nvidia-smi
 * figure is the first node, so DeepSpeed rows compare stage 0. */
static void row_compare(const rowref *r, framework fw, const tp_config *c, const tp_result *res,
                        tp_io_vrow *v)
{
    v->evaluated = true;
    v->recompute = recompute_name(c->train.recompute);
    v->pred_fit = res->memory.fits;
    v->fit_total_bytes = res->memory.total_bytes;
    v->fit_capacity_bytes = res->memory.capacity_bytes;
    v->fit_stage = res->memory.stage;
    v->step_s = res->time.step_s;
    v->mfu = res->time.mfu;
    v->bottleneck = res->time.bottleneck;
    v->time = res->time;
    const tp_memory *m = fw == FW_DEEPSPEED ? &res->stage_first : &res->memory;
    v->mem = *m;

    if (measured_throughput(r, fw, c, v) && v->meas_tps > 0.0 && res->time.computed) {
        v->has_tput = true;
        v->pred_tps = res->time.tokens_per_s_per_gpu;
        v->tput_err = v->pred_tps / v->meas_tps - 1.0;
    }
    double mem;
    if (cell_f64(r, "measured_memory_gb_per_gpu", &mem) && mem > 0.0) {
        v->metric = metric_of(cell(r, "memory_metric"), &v->mem_unit);
        double unit = strcmp(v->mem_unit, "GiB") == 0 ? TP_GIB : TP_GB;
        v->has_mem = v->metric != TP_IO_MEM_NONE;
        if (!v->has_mem)
            note(v,
                 "memory metric \"%.60s\" not recognised (nvidia-smi, reserved, active, "
                 "allocated): memory not compared",
                 cell(r, "memory_metric"));
        v->meas_mem = mem;
        v->pred_mem = predicted_metric(m, v->metric) / unit;
        v->mem_err = v->pred_mem / mem - 1.0;
    }
}

void tp_io_validate_row(const tp_io_csv *csv, size_t row, const tp_io_eff_overrides *ov,
                        tp_io_vrow *v)
{
    assert(row < csv->num_rows);
    rowref rr = {csv, row};
    const rowref *r = &rr;
    memset(v, 0, sizeof *v);
    v->id = cell(r, "id");
    v->line = csv->line[row];
    v->recompute = "";
    v->bottleneck = "";
    v->tput_kind = "-";
    tp_config c;
    memset(&c, 0, sizeof c);
    /* in this order: it decides which reason a bad row gets, and the
     * order of the assumptions listed */
    const tp_io__vgpu *ge = row_gpu_entry(r, v);
    if (!ge || !measured_cells_ok(r, v))
        return;
    framework fw = framework_of(r);
    if (has(r, "framework") && framework_cell(r) == FW_COUNT)
        note(v, "framework \"%s\" has no profile: conventions from the id and source",
             cell(r, "framework"));
    if (!build_model(r, fw, v, &c.model) || !row_gpu(r, ge, ov, v, &c.gpu))
        return;
    bool rc_given = false;
    if (!build_train(r, fw, v, &c, &rc_given))
        return;
    c.opts.unfused_full_matrix = ov && ov->unfused_full_matrix;
    c.opts.grouped_gemm = ov && ov->grouped_gemm;
    tp_io__validate_recipes(r, fw, v, &c);
    if (ov && ov->moe_a2a_overlap && fw == FW_MCORE)
        a2a_overlap_where_allowed(&c);
    v->expect_fit = !contains(cell(r, "notes"), "OUT OF MEMORY");
    tp_result res;
    if (!row_predict(&c, rc_given, v, &res))
        return;
    if (c.opts.moe_a2a_overlap)
        note(v, "EP all-to-all overlap on (validate --moe-a2a-overlap)");
    row_compare(r, fw, &c, &res, v);
    v->config = c;
}

char *tp_io_validate_reproduce(const tp_io_vrow *v, bool eff_given, char *why, size_t n)
{
    if (eff_given) {
        snprintf(why, n, "efficiencies set with --eff (no flag sets them)");
        return NULL;
    }
    if (tp_io_config_flags_lost(&v->config, why, n) > 0)
        return NULL;
    char *flags = tp_io_config_flags(&v->config);
    sbuf b = {0};
    if (flags)
        sb_printf(&b, "trainplan estimate %s", flags);
    free(flags);
    char *line = sb_take(&b);
    if (!line)
        snprintf(why, n, "out of memory");
    return line;
}
