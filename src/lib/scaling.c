/* SPDX-License-Identifier: MIT */
/*
 * scaling.c: Chinchilla-style scaling laws (formulas.md section 5).
 *
 *   L(N, D) = E + A / N^alpha + B / D^beta          nats/token
 *
 * N = parameters (embeddings included: Hoffmann et al. 2022 count total
 * parameters), D = training tokens. Minimising L under C = 6 N D gives
 * (Hoffmann eq. 4; Epoch's compute_optimal_allocation) [CODE]:
 *
 *   G = (alpha A / (beta B))^(1/(alpha+beta)),  a = beta/(alpha+beta),
 *   b = alpha/(alpha+beta),  N_opt = G (C/6)^a,  D_opt = (C/6)^b / G.
 *
 * The constants are data, one row per fit, with their source (table
 * `fits`). Besiroglu et al. 2024 is the default: the printed Hoffmann
 * constants imply ~60-90 tokens per parameter at Chinchilla's budget,
 * against the paper's own ~20 (formulas.md 5.2). Predicted losses are for
 * the fit's data (MassiveText) and tokenizer: compare plans with them, do
 * not promise them.
 *
 * Critical batch (formulas.md 5.4): Kaplan et al. 2020 B_crit(L) =
 * B_star / L^(1/alpha_B) tokens, for their data and tokenizer.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const tp_scaling_fit fits[TP_FIT_COUNT] = {
    [TP_FIT_BESIROGLU] = {"besiroglu", 1.8169, 482.01, 2085.43, 0.3478, 0.3658,
                          "Besiroglu et al. 2024, \"Chinchilla Scaling: A replication attempt\" "
                          "(epoch-research/analyzing-chinchilla @ 9225883, data_analysis.ipynb "
                          "printed fit; formulas.md 5.1)"},
    [TP_FIT_HOFFMANN] = {"hoffmann", 1.6934, 406.40, 410.72, 0.33917, 0.28491,
                         "Hoffmann et al. 2022, approach 3, unrounded from the paper's TeX source "
                         "(E = e^0.5267228, A = e^6.0073404, B = e^6.0179186; "
                         "epoch-research/analyzing-chinchilla; formulas.md 5.1)"},
    [TP_FIT_HOFFMANN_ROUNDED] = {"hoffmann-rounded", 1.69, 406.4, 410.7, 0.34, 0.28,
                                 "Hoffmann et al. 2022, approach 3, as printed (eq. 10); "
                                 "formulas.md 5.1"},
};

const tp_scaling_fit *tp_scaling_fit_get(tp_fit_id id)
{
    if ((int)id < 0 || id >= TP_FIT_COUNT)
        return NULL;
    return &fits[id];
}

const tp_scaling_fit *tp_scaling_fit_find(const char *name)
{
    if (!name)
        return NULL;
    if (strcmp(name, "hoffmann-unrounded") == 0)
        return &fits[TP_FIT_HOFFMANN];
    for (int i = 0; i < TP_FIT_COUNT; i++)
        if (strcmp(fits[i].name, name) == 0)
            return &fits[i];
    return NULL;
}

double tp_scaling_loss(const tp_scaling_fit *f, double N, double D)
{
    if (!f || !(N > 0.0) || !(D > 0.0) || !isfinite(N) || !isfinite(D))
        return (double)NAN; /* NAN is a float constant: say the promotion is meant (clang) */
    return f->E + f->A / pow(N, f->alpha) + f->B / pow(D, f->beta);
}

static bool positive(double x)
{
    return isfinite(x) && x > 0.0;
}

tp_status tp_scaling_optimal(const tp_scaling_fit *f, double C, tp_scaling_point *out,
                             tp_error *err)
{
    if (!f)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "fit", "no scaling fit given");
    if (!positive(C) || C > 1e40)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "compute",
                            "compute budget must be a positive number of FLOPs up to 1e40");
    double s = f->alpha + f->beta;
    double G = pow(f->alpha * f->A / (f->beta * f->B), 1.0 / s);
    double a = f->beta / s, b = f->alpha / s;
    memset(out, 0, sizeof *out);
    out->compute_flops = C;
    out->params = G * pow(C / 6.0, a);
    out->tokens = pow(C / 6.0, b) / G;
    out->tokens_per_param = out->tokens / out->params;
    out->loss = tp_scaling_loss(f, out->params, out->tokens);
    return TP_OK;
}

tp_status tp_scaling_rule(const tp_scaling_fit *f, double C, double r, tp_scaling_point *out,
                          tp_error *err)
{
    if (!positive(C) || C > 1e40)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "compute",
                            "compute budget must be a positive number of FLOPs up to 1e40");
    if (!positive(r) || r > 1e6)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "tokens-per-param",
                            "tokens per parameter must be in (0, 1e6]");
    memset(out, 0, sizeof *out);
    out->compute_flops = C;
    out->params = sqrt(C / (6.0 * r));
    out->tokens = r * out->params;
    out->tokens_per_param = r;
    out->loss = f ? tp_scaling_loss(f, out->params, out->tokens) : 0.0;
    return TP_OK;
}

double tp_critical_batch_tokens(double loss)
{
    if (!positive(loss))
        return 0.0;
    return TP_KAPLAN_BSTAR_TOKENS / pow(loss, 1.0 / TP_KAPLAN_ALPHA_B);
}

/* Llama-style parameters of L layers of width h (ffn f), vocab V, untied. */
static double llama_params(double L, double h, double f, double V)
{
    return L * (4.0 * h * h + 3.0 * h * f + 2.0 * h) + 2.0 * V * h + h;
}

static int64_t round_up(double x, int64_t m)
{
    int64_t n = (int64_t)ceil(x / (double)m);
    return (n < 1 ? 1 : n) * m;
}

tp_status tp_scaling_shape(double params, int64_t vocab, tp_model *out, tp_error *err)
{
    if (!positive(params) || params < 1e6 || params > 1e14)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "params",
                            "%.3g parameters is outside [1e6, 1e14]", params);
    if (vocab < 1 || vocab > TP_MAX_VOCAB)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "vocab", "vocabulary must be in [1, %d]",
                            TP_MAX_VOCAB);
    /* N ~= 12 L h^2 with h = 128 L (non-embedding), solved for L, then the
     * layer count is refitted to the embedding-inclusive total. */
    const double aspect = 128.0, head_dim = 128.0;
    double V = (double)vocab;
    double L0 = cbrt(params / (12.0 * aspect * aspect));
    int64_t heads = (int64_t)llround(aspect * L0 / head_dim);
    if (heads >= 8) /* a multiple of 8 heads, so that TP up to 8 divides them */
        heads = (int64_t)llround((double)heads / 8.0) * 8;
    if (heads < 1)
        heads = 1;
    double h = (double)heads * head_dim;
    int64_t f = round_up(8.0 / 3.0 * h, 256);
    double per_layer = llama_params(1.0, h, (double)f, 0.0) - h; /* one layer, no embeddings */
    double rest = params - (2.0 * V * h + h);
    int64_t L = (int64_t)llround(rest / per_layer);
    if (L < 1)
        L = 1;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "llama-style-%.3gB", params / 1e9);
    out->norm = TP_NORM_RMSNORM;
    out->mlp = TP_MLP_SWIGLU;
    out->pos = TP_POS_ROTARY;
    out->num_layers = L;
    out->hidden = (int64_t)h;
    out->num_heads = heads;
    out->num_kv_heads = heads;
    out->ffn_hidden = f;
    out->vocab = vocab;
    return TP_OK;
}
