/* SPDX-License-Identifier: MIT */
/*
 * import.c: what every import shares (import.h): reading the file, the
 * run description's values an import sets and where each came from,
 * and the second step (tp_io_import_apply) that sets what no flag
 * expresses, handed to the importer of the file's kind.
 *
 * The importers themselves live with what they read: Megatron-LM in
 * src/engines/megatron.c, DeepSpeed in src/engines/deepspeed.c (each with
 * its export), a trainplan --json result in result_read.c. They fill the
 * tp_import with the helpers of import_build.h.
 */
#include <string.h>

#include "engines.h"
#include "fields.h"
#include "import.h"
#include "io.h"
#include "io_internal.h"

tp_status tp_io_import_fill(const tp_import *im, tp_io_desc *d, tp_error *err)
{
    for (int i = 0; i < im->nvals; i++) {
        const tp_import_value *v = &im->vals[i];
        const tp_io_field *f = tp_io_field_at((size_t)v->slot);
        const char *text = im->buf + v->off;
        if (f && f->type != TP_IO_FIELD_SWITCH && (text[0] == '\0' || strncmp(text, "--", 2) == 0))
            return tp_error_set(err, TP_ERR_INVALID_ARG, "", "%s needs a value", f->flag);
        tp_io_desc_src src = {v->src, v->line, v->col};
        tp_io_desc_set_file(d, v->slot, text, &src);
    }
    return TP_OK;
}

const char *tp_io_import_value(const tp_import *im, const char *flag)
{
    int slot = tp_io_desc_slot(flag);
    for (int i = im->nvals - 1; slot >= 0 && i >= 0; i--)
        if (im->vals[i].slot == slot)
            return im->buf + im->vals[i].off;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Files and the second step                                            */
/* ------------------------------------------------------------------ */

tp_status tp_io_import_load(tp_import_kind kind, const char *path, tp_import *out, tp_error *err)
{
    memset(out, 0, sizeof *out);
    tp_io_read_opts o = {TP_IO_MAX_JSON_BYTES, true, false, ""};
    char *buf;
    size_t n;
    tp_status rs = tp_io_read_file(path, &o, &buf, &n, err);
    if (rs != TP_OK)
        return rs;
    if (memchr(buf, '\0', n)) {
        free(buf);
        return tp_error_set(err, TP_ERR_IO, "", "%s is not a text file", path);
    }
    tp_status st;
    switch (kind) {
    case TP_IMPORT_MEGATRON: st = tp_io_import_megatron(buf, path, out, err); break;
    case TP_IMPORT_DEEPSPEED: st = tp_io_import_deepspeed(buf, path, out, err); break;
    case TP_IMPORT_TORCHTITAN: st = tp_io_import_torchtitan(buf, path, out, err); break;
    case TP_IMPORT_NEMO: st = tp_io_import_nemo(buf, path, out, err); break;
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
            const tp_model *f = &im->model;
            if (f->rope_scaling == TP_ROPE_SCALING_OTHER)
                c->model.rope_scaling = TP_ROPE_SCALING_OTHER;
            if (f->rope_scaling == TP_ROPE_SCALING_LLAMA3 &&
                c->model.rope_scaling == TP_ROPE_SCALING_LLAMA3) {
                /* Llama 3's frequency factors and original context: no flag */
                if (f->rope_low_freq_factor > 0)
                    c->model.rope_low_freq_factor = f->rope_low_freq_factor;
                if (f->rope_high_freq_factor > 0)
                    c->model.rope_high_freq_factor = f->rope_high_freq_factor;
                if (f->rope_original_max > 0)
                    c->model.rope_original_max = f->rope_original_max;
            }
        }
        return TP_OK;
    }
    if (im->kind == TP_IMPORT_MEGATRON)
        return tp_engine_megatron_apply(im, user, c, err);
    if (im->kind == TP_IMPORT_TORCHTITAN)
        return tp_engine_torchtitan_apply(im, user, c, err);
    if (im->kind == TP_IMPORT_NEMO)
        return tp_engine_nemo_apply(im, user, c, err);
    return tp_engine_deepspeed_apply(im, user, c, err);
}
