/* SPDX-License-Identifier: MIT */
/*
 * plan_in.c: the input side of `trainplan plan` (see plan_in.h): phase
 * specifications from --phase flags and from a --plan-file. Kept apart
 * from plan_out.c, which only writes, so that each file does one thing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "io_internal.h"
#include "plan_in.h"

/*
 * Apply one key/value to a phase; `where` names it for messages: "--phase"
 * (the field is "--phase tokens") or "phases[2]" (the field is
 * "phases[2].tokens"). The message starts with the field and err->path is the
 * field, so the printer names it once.
 */
static tp_status phase_set(tp_phase *p, const char *key, const char *val, const char *where,
                           tp_error *err)
{
    char field[96];
    snprintf(field, sizeof field, "%.40s%s%.40s", where, where[0] == '-' ? " " : ".", key);
    tp_status st = TP_OK;
    int64_t i;
    if (strcmp(key, "name") == 0) {
        if (!val[0] || strlen(val) >= sizeof p->name)
            st = tp_error_set(err, TP_ERR_INVALID_ARG, field, "%s: a name of 1 to %zu characters",
                              field, sizeof p->name - 1);
        else
            snprintf(p->name, sizeof p->name, "%s", val);
    } else if (strcmp(key, "tokens") == 0) {
        st = tp_io_parse_f64(field, val, 1.0, 1e18, &p->tokens, err);
    } else if (strcmp(key, "seq") == 0 || strcmp(key, "seq-len") == 0 ||
               strcmp(key, "seq_len") == 0) {
        st = tp_io_parse_i64(field, val, 1, 134217728, &p->seq_len, err);
    } else if (strcmp(key, "batch") == 0 || strcmp(key, "global-batch") == 0 ||
               strcmp(key, "global_batch") == 0) {
        st = tp_io_parse_i64(field, val, 1, 1099511627776LL, &p->global_batch, err);
    } else if (strcmp(key, "batch-tokens") == 0 || strcmp(key, "batch_tokens") == 0) {
        st = tp_io_parse_i64(field, val, 1, 1000000000000000LL, &p->batch_tokens, err);
    } else if (strcmp(key, "frozen") == 0 || strcmp(key, "frozen-params") == 0 ||
               strcmp(key, "frozen_params") == 0) {
        st = tp_io_parse_f64_or0(field, val, 1.0, 1e14, &p->frozen_params, err);
    } else if (strcmp(key, "frozen-tokens") == 0 || strcmp(key, "frozen_tokens") == 0) {
        st = tp_io_parse_f64_or0(field, val, 1.0, 1e18, &p->frozen_tokens, err);
    } else if (strcmp(key, "frozen-backward") == 0 || strcmp(key, "frozen_backward") == 0) {
        st = tp_io_parse_i64(field, val, 0, 1, &i, err);
        if (st == TP_OK)
            p->frozen_no_backward = i == 0;
    } else {
        st = tp_error_set(err, TP_ERR_INVALID_ARG, field,
                          "%s: unknown key (expected name, tokens, seq, batch, batch-tokens, "
                          "frozen, frozen-tokens, frozen-backward)",
                          field);
    }
    if (st != TP_OK && err)
        snprintf(err->path, sizeof err->path, "%s", field);
    return st;
}

tp_status tp_io_phase_parse(const char *spec, tp_phase *out, tp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!spec || !spec[0])
        return tp_error_set(err, TP_ERR_INVALID_ARG, "phase",
                            "empty phase (expected key=value,... e.g. name=long,seq=32768,"
                            "tokens=40e9)");
    char buf[512];
    if (strlen(spec) >= sizeof buf)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "phase",
                            "phase specification of %zu bytes is too long (at most %zu)",
                            strlen(spec), sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "phase",
                                "\"%.60s\" is not key=value (e.g. seq=32768)", tok);
        *eq = '\0';
        tp_status st = phase_set(out, tok, eq + 1, "--phase", err);
        if (st != TP_OK)
            return st;
    }
    return TP_OK;
}

tp_status tp_io_plan_file_load(const char *path, tp_plan_in *in, tp_error *err)
{
    tp_io_read_opts o = {TP_IO_MAX_JSON_BYTES, false, true, "plan-file"};
    char *text;
    size_t len;
    tp_status rs = tp_io_read_file(path, &o, &text, &len, err);
    if (rs != TP_OK)
        return rs;
    json_error_t je;
    bool oom = false;
    json_t *root = tp_io__json_loads(text, len, JSON_REJECT_DUPLICATES, &je, &oom);
    free(text);
    if (oom)
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading the plan file");
    if (!root) {
        tp_status st = tp_error_set(err, TP_ERR_PARSE, "", "%.200s", je.text);
        if (err) {
            err->line = je.line;
            err->column = je.column;
        }
        return st;
    }
    tp_status st = TP_OK;
    json_t *phases = json_object_get(root, "phases");
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        if (strcmp(key, "phases") != 0 && strcmp(key, "source") != 0 &&
            strcmp(key, "comment") != 0) {
            st = tp_error_set(err, TP_ERR_CONFIG, key,
                              "unknown key \"%.60s\" (a plan file holds \"phases\")", key);
            goto done;
        }
    }
    if (!json_is_array(phases) || json_array_size(phases) == 0) {
        st = tp_error_set(err, TP_ERR_CONFIG, "phases",
                          "\"phases\" must be a non-empty array of phase objects");
        goto done;
    }
    size_t i;
    json_t *ph;
    json_array_foreach(phases, i, ph)
    {
        char where[32];
        snprintf(where, sizeof where, "phases[%zu]", i);
        if (in->num_phases >= TP_PLAN_MAX_PHASES) {
            st =
                tp_error_set(err, TP_ERR_CONFIG, "phases", "at most %d phases", TP_PLAN_MAX_PHASES);
            goto done;
        }
        if (!json_is_object(ph)) {
            st = tp_error_set(err, TP_ERR_CONFIG, "phases", "%s must be an object", where);
            goto done;
        }
        tp_phase p;
        memset(&p, 0, sizeof p);
        json_object_foreach(ph, key, v)
        {
            char val[64];
            if (json_is_string(v))
                snprintf(val, sizeof val, "%s", json_string_value(v));
            else if (json_is_integer(v))
                snprintf(val, sizeof val, "%lld", (long long)json_integer_value(v));
            else if (json_is_real(v))
                snprintf(val, sizeof val, "%.17g", json_real_value(v));
            else if (json_is_boolean(v))
                snprintf(val, sizeof val, "%d", json_is_true(v) ? 1 : 0);
            else {
                st = tp_error_set(err, TP_ERR_CONFIG, "phases",
                                  "%s.%.40s: expected a number or "
                                  "a string",
                                  where, key);
                goto done;
            }
            st = phase_set(&p, key, val, where, err);
            if (st != TP_OK) {
                if (err)
                    err->code = TP_ERR_CONFIG;
                st = TP_ERR_CONFIG;
                goto done;
            }
        }
        in->phases[in->num_phases++] = p;
    }
done:
    json_decref(root);
    return st;
}
