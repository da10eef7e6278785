#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/svm.h"

/* Numbers in the model text always use '.', whatever LC_NUMERIC the
 * application chose, so they are read in the C locale. */
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

static double strtod_c(const char *s, char **end)
{
    pthread_once(&c_locale_once, make_c_locale);
    if (c_locale)
        return strtod_l(s, end, c_locale);
    return strtod(s, end);
}

typedef struct Line {
    const char *p, *end; /* the unread rest of the line */
    unsigned no;         /* 1-based line number */
} Line;

typedef struct Text {
    const char *p, *end;
    unsigned line_no;
} Text;

static bool next_line(Text *t, Line *l)
{
    if (t->p >= t->end)
        return false;
    const char *nl = memchr(t->p, '\n', (size_t)(t->end - t->p));
    const char *e = nl ? nl : t->end;
    l->p = t->p;
    l->end = e;
    l->no = ++t->line_no;
    t->p = nl ? nl + 1 : t->end;
    return true;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* The next blank-separated token of the line, or false at its end. */
static bool next_token(Line *l, const char **tok, size_t *len)
{
    while (l->p < l->end && is_blank(*l->p))
        l->p++;
    if (l->p >= l->end)
        return false;
    const char *s = l->p;
    while (l->p < l->end && !is_blank(*l->p))
        l->p++;
    *tok = s;
    *len = (size_t)(l->p - s);
    return true;
}

static bool line_is_empty(Line l)
{
    const char *t;
    size_t n;
    return !next_token(&l, &t, &n);
}

static bool tok_is(const char *tok, size_t len, const char *word)
{
    return strlen(word) == len && !memcmp(tok, word, len);
}

/* A decimal number that fills the whole token: no hex, inf, nan or junk. */
static int parse_double(const char *tok, size_t len, double *out)
{
    char buf[64];
    if (!len || len >= sizeof(buf))
        return -EINVAL;
    for (size_t i = 0; i < len; i++) {
        const char c = tok[i];
        if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' ||
              c == 'E'))
            return -EINVAL;
    }
    memcpy(buf, tok, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    const double v = strtod_c(buf, &end);
    if (end != buf + len || errno == ERANGE || !isfinite(v))
        return -EINVAL;
    *out = v;
    return 0;
}

static int parse_long(const char *tok, size_t len, long *out)
{
    char buf[32];
    if (!len || len >= sizeof(buf))
        return -EINVAL;
    for (size_t i = 0; i < len; i++) {
        const char c = tok[i];
        if (!((c >= '0' && c <= '9') || (i == 0 && (c == '+' || c == '-'))))
            return -EINVAL;
    }
    memcpy(buf, tok, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    const long v = strtol(buf, &end, 10);
    if (end != buf + len || errno == ERANGE)
        return -EINVAL;
    *out = v;
    return 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int fail(char *why, size_t why_len, unsigned line, const char *fmt, ...)
{
    int n = snprintf(why, why_len, "line %u: ", line);
    if (n < 0 || (size_t)n >= why_len)
        return -EINVAL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why + n, why_len - (size_t)n, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

/* The value after a header key; a key without one is an error. */
static int header_token(Line *l, const char *key, const char **tok, size_t *len, char *why,
                        size_t why_len)
{
    if (!next_token(l, tok, len))
        return fail(why, why_len, l->no, "'%s' has no value", key);
    return 0;
}

/* A numeric header value stands alone on its line. */
static int header_end(Line *l, const char *key, char *why, size_t why_len)
{
    const char *tok;
    size_t len;
    if (next_token(l, &tok, &len))
        return fail(why, why_len, l->no, "'%s' has more than one value", key);
    return 0;
}

static int header_double(Line *l, const char *key, double *out, char *why, size_t why_len)
{
    const char *tok = NULL;
    size_t len = 0;
    int err = header_token(l, key, &tok, &len, why, why_len);
    if (err)
        return err;
    if (parse_double(tok, len, out))
        return fail(why, why_len, l->no, "'%s' value '%.*s' is not a finite number", key,
                    (int)(len > 32 ? 32 : len), tok);
    if (fabs(*out) > VMAF_MODEL_MAX_ABS)
        return fail(why, why_len, l->no, "'%s' value %.*g is larger than %g in magnitude", key,
                    VMAF_MODEL_ABS_DIGITS(*out), *out, VMAF_MODEL_MAX_ABS);
    return header_end(l, key, why, why_len);
}

static int header_long(Line *l, const char *key, long *out, char *why, size_t why_len)
{
    const char *tok = NULL;
    size_t len = 0;
    int err = header_token(l, key, &tok, &len, why, why_len);
    if (err)
        return err;
    if (parse_long(tok, len, out))
        return fail(why, why_len, l->no, "'%s' value '%.*s' is not an integer", key,
                    (int)(len > 32 ? 32 : len), tok);
    return header_end(l, key, why, why_len);
}

typedef struct Keyword {
    const char *word;
    int value;
} Keyword;

/* Looks a token up in a table of n keywords. */
static bool keyword(const char *tok, size_t len, const Keyword *kw, size_t n, int *out)
{
    for (size_t i = 0; i < n; i++) {
        if (tok_is(tok, len, kw[i].word)) {
            *out = kw[i].value;
            return true;
        }
    }
    return false;
}

enum {
    SEEN_SVM_TYPE = 1 << 0,
    SEEN_KERNEL = 1 << 1,
    SEEN_DEGREE = 1 << 2,
    SEEN_GAMMA = 1 << 3,
    SEEN_COEF0 = 1 << 4,
    SEEN_NR_CLASS = 1 << 5,
    SEEN_TOTAL_SV = 1 << 6,
    SEEN_RHO = 1 << 7,
};

static int parse_header(Text *t, VmafSvm *s, long *total_sv, char *why, size_t why_len)
{
    unsigned seen = 0;
    Line l;
    while (next_line(t, &l)) {
        const char *key;
        size_t klen;
        if (!next_token(&l, &key, &klen))
            continue;
        unsigned bit = 0;
        int err = 0;
        if (tok_is(key, klen, "SV")) {
            const char *tok;
            size_t len;
            if (next_token(&l, &tok, &len))
                return fail(why, why_len, l.no, "'SV' must be alone on its line");
            static const struct {
                unsigned bit;
                const char *name;
            } required[] = {
                {SEEN_SVM_TYPE, "svm_type"}, {SEEN_KERNEL, "kernel_type"},
                {SEEN_NR_CLASS, "nr_class"}, {SEEN_TOTAL_SV, "total_sv"},
                {SEEN_RHO, "rho"},
            };
            for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
                if (!(seen & required[i].bit))
                    return fail(why, why_len, l.no, "header key '%s' is missing before 'SV'",
                                required[i].name);
            const bool need_gamma = s->kernel != VMAF_SVM_KERNEL_LINEAR;
            const bool need_coef0 =
                s->kernel == VMAF_SVM_KERNEL_POLY || s->kernel == VMAF_SVM_KERNEL_SIGMOID;
            const bool need_degree = s->kernel == VMAF_SVM_KERNEL_POLY;
            if (need_gamma && !(seen & SEEN_GAMMA))
                return fail(why, why_len, l.no, "header key 'gamma' is missing (the kernel needs it)");
            if (need_coef0 && !(seen & SEEN_COEF0))
                return fail(why, why_len, l.no, "header key 'coef0' is missing (the kernel needs it)");
            if (need_degree && !(seen & SEEN_DEGREE))
                return fail(why, why_len, l.no, "header key 'degree' is missing (the kernel needs it)");
            return 0;
        } else if (tok_is(key, klen, "svm_type")) {
            static const Keyword types[] = {
                {"nu_svr", VMAF_SVM_NU_SVR}, {"epsilon_svr", VMAF_SVM_EPSILON_SVR},
            };
            const char *v = NULL;
            size_t n = 0;
            int type;
            bit = SEEN_SVM_TYPE;
            err = header_token(&l, "svm_type", &v, &n, why, why_len);
            if (err)
                return err;
            if (keyword(v, n, types, sizeof(types) / sizeof(types[0]), &type))
                s->type = type;
            else if (tok_is(v, n, "c_svc") || tok_is(v, n, "nu_svc") || tok_is(v, n, "one_class"))
                return fail(why, why_len, l.no,
                            "svm_type '%.*s' is a classifier; only nu_svr and epsilon_svr "
                            "predict a score", (int)n, v);
            else
                return fail(why, why_len, l.no,
                            "unknown svm_type '%.*s' (expected nu_svr or epsilon_svr)",
                            (int)(n > 32 ? 32 : n), v);
        } else if (tok_is(key, klen, "kernel_type")) {
            static const Keyword kernels[] = {
                {"linear", VMAF_SVM_KERNEL_LINEAR}, {"polynomial", VMAF_SVM_KERNEL_POLY},
                {"rbf", VMAF_SVM_KERNEL_RBF}, {"sigmoid", VMAF_SVM_KERNEL_SIGMOID},
            };
            const char *v = NULL;
            size_t n = 0;
            int kernel;
            bit = SEEN_KERNEL;
            err = header_token(&l, "kernel_type", &v, &n, why, why_len);
            if (err)
                return err;
            if (!keyword(v, n, kernels, sizeof(kernels) / sizeof(kernels[0]), &kernel))
                return fail(why, why_len, l.no,
                            "unknown kernel_type '%.*s' (expected linear, polynomial, rbf or "
                            "sigmoid; precomputed kernels cannot score features)",
                            (int)(n > 32 ? 32 : n), v);
            s->kernel = kernel;
        } else if (tok_is(key, klen, "degree")) {
            long d;
            bit = SEEN_DEGREE;
            err = header_long(&l, "degree", &d, why, why_len);
            if (err)
                return err;
            if (d < 0 || d > VMAF_SVM_MAX_DEGREE)
                return fail(why, why_len, l.no, "'degree' %ld is outside 0..%d", d,
                            VMAF_SVM_MAX_DEGREE);
            s->degree = (int)d;
        } else if (tok_is(key, klen, "gamma")) {
            bit = SEEN_GAMMA;
            err = header_double(&l, "gamma", &s->gamma, why, why_len);
        } else if (tok_is(key, klen, "coef0")) {
            bit = SEEN_COEF0;
            err = header_double(&l, "coef0", &s->coef0, why, why_len);
        } else if (tok_is(key, klen, "nr_class")) {
            long n;
            bit = SEEN_NR_CLASS;
            err = header_long(&l, "nr_class", &n, why, why_len);
            if (!err && n != 2)
                err = fail(why, why_len, l.no, "'nr_class' is %ld; a regression model has 2", n);
        } else if (tok_is(key, klen, "total_sv")) {
            bit = SEEN_TOTAL_SV;
            err = header_long(&l, "total_sv", total_sv, why, why_len);
            if (!err && (*total_sv < 1 || *total_sv > (long)VMAF_SVM_MAX_SV))
                err = fail(why, why_len, l.no, "'total_sv' %ld is outside 1..%u", *total_sv,
                           VMAF_SVM_MAX_SV);
        } else if (tok_is(key, klen, "rho")) {
            bit = SEEN_RHO;
            err = header_double(&l, "rho", &s->rho, why, why_len);
        } else if (tok_is(key, klen, "label") || tok_is(key, klen, "probA") ||
                   tok_is(key, klen, "probB") || tok_is(key, klen, "nr_sv") ||
                   tok_is(key, klen, "prob_density_marks")) {
            /* Training or classification metadata: not used by regression. */
            continue;
        } else {
            return fail(why, why_len, l.no, "unknown header key '%.*s'",
                        (int)(klen > 32 ? 32 : klen), key);
        }
        if (err)
            return err;
        if (seen & bit)
            return fail(why, why_len, l.no, "header key '%.*s' appears twice", (int)klen, key);
        seen |= bit;
    }
    return fail(why, why_len, t->line_no, "no 'SV' line: the support vectors are missing");
}

int vmaf_svm_parse(VmafSvm **svm, const char *text, size_t len, unsigned n_features,
                   char *why, size_t why_len)
{
    if (!svm || !text || !why || !why_len)
        return -EINVAL;
    *svm = NULL;
    why[0] = '\0';

    VmafSvm *s = calloc(1, sizeof(*s));
    if (!s)
        return -ENOMEM;

    Text t = {.p = text, .end = text + len, .line_no = 0};
    long total_sv = 0;
    int err = parse_header(&t, s, &total_sv, why, why_len);
    if (err)
        goto fail;

    /* Size everything from what the text holds, never from the declared
     * count alone, so a lying total_sv cannot request huge buffers. */
    size_t n_lines = 0, n_colons = 0;
    {
        Text c = t;
        Line l;
        while (next_line(&c, &l)) {
            if (line_is_empty(l))
                continue;
            n_lines++;
            for (const char *p = l.p; p < l.end; p++)
                n_colons += *p == ':';
        }
    }
    if (n_lines != (size_t)total_sv) {
        err = fail(why, why_len, t.line_no, "'total_sv' is %ld but %zu support vector lines follow 'SV'",
                   total_sv, n_lines);
        goto fail;
    }

    s->n_sv = (unsigned)total_sv;
    s->coef = malloc(sizeof(*s->coef) * s->n_sv);
    s->sv_start = malloc(sizeof(*s->sv_start) * (s->n_sv + 1));
    s->node = malloc(sizeof(*s->node) * (n_colons ? n_colons : 1));
    if (!s->coef || !s->sv_start || !s->node) {
        err = -ENOMEM;
        goto fail;
    }

    size_t n_node = 0;
    unsigned i = 0;
    Line l;
    while (next_line(&t, &l)) {
        const char *tok = NULL;
        size_t tlen = 0;
        if (!next_token(&l, &tok, &tlen))
            continue; /* blank line */
        double coef;
        if (parse_double(tok, tlen, &coef)) {
            err = fail(why, why_len, l.no, "support vector coefficient '%.*s' is not a finite number",
                       (int)(tlen > 32 ? 32 : tlen), tok);
            goto fail;
        }
        if (fabs(coef) > VMAF_MODEL_MAX_ABS) {
            err = fail(why, why_len, l.no,
                       "support vector coefficient %.*g is larger than %g in magnitude",
                       VMAF_MODEL_ABS_DIGITS(coef), coef, VMAF_MODEL_MAX_ABS);
            goto fail;
        }
        s->coef[i] = coef;
        s->sv_start[i] = n_node;
        long prev = 0;
        while (next_token(&l, &tok, &tlen)) {
            const char *colon = memchr(tok, ':', tlen);
            if (!colon) {
                err = fail(why, why_len, l.no, "'%.*s' is not index:value", (int)(tlen > 32 ? 32 : tlen), tok);
                goto fail;
            }
            long idx;
            double v;
            const size_t ilen = (size_t)(colon - tok);
            if (parse_long(tok, ilen, &idx) || idx < 1) {
                err = fail(why, why_len, l.no, "feature index '%.*s' is not a positive integer",
                           (int)(ilen > 32 ? 32 : ilen), tok);
                goto fail;
            }
            if (idx > (long)n_features) {
                err = fail(why, why_len, l.no,
                           "feature index %ld is larger than the model's %u features "
                           "(feature_names and the support vectors disagree)",
                           idx, n_features);
                goto fail;
            }
            if (idx <= prev) {
                err = fail(why, why_len, l.no, "feature index %ld follows %ld; indices must ascend",
                           idx, prev);
                goto fail;
            }
            if (parse_double(colon + 1, tlen - ilen - 1, &v)) {
                err = fail(why, why_len, l.no, "value of feature %ld is not a finite number", idx);
                goto fail;
            }
            if (fabs(v) > VMAF_MODEL_MAX_ABS) {
                err = fail(why, why_len, l.no,
                           "value %.*g of feature %ld is larger than %g in magnitude",
                           VMAF_MODEL_ABS_DIGITS(v), v, idx, VMAF_MODEL_MAX_ABS);
                goto fail;
            }
            prev = idx;
            s->node[n_node].index = (int)idx;
            s->node[n_node].value = v;
            n_node++;
        }
        i++;
    }
    s->sv_start[i] = n_node;

    *svm = s;
    return 0;

fail:
    vmaf_svm_destroy(s);
    return err;
}

void vmaf_svm_destroy(VmafSvm *svm)
{
    if (!svm)
        return;
    free(svm->coef);
    free(svm->sv_start);
    free(svm->node);
    free(svm);
}

/* The kernels walk both sparse vectors in ascending index order and add in
 * exactly that order, as libsvm does: floating-point addition is not
 * associative and the scores are specified to the last bit. */
static double dot(const double *x, unsigned n, const VmafSvmNode *y, size_t m)
{
    double sum = 0.0;
    unsigned a = 0;
    size_t b = 0;
    while (a < n && b < m) {
        const int xi = (int)a + 1;
        if (xi == y[b].index) {
            sum += x[a] * y[b].value;
            a++;
            b++;
        } else if (xi > y[b].index) {
            b++;
        } else {
            a++;
        }
    }
    return sum;
}

static double squared_distance(const double *x, unsigned n, const VmafSvmNode *y, size_t m)
{
    double sum = 0.0;
    unsigned a = 0;
    size_t b = 0;
    while (a < n && b < m) {
        const int xi = (int)a + 1;
        if (xi == y[b].index) {
            const double d = x[a] - y[b].value;
            sum += d * d;
            a++;
            b++;
        } else if (xi > y[b].index) {
            sum += y[b].value * y[b].value;
            b++;
        } else {
            sum += x[a] * x[a];
            a++;
        }
    }
    for (; a < n; a++)
        sum += x[a] * x[a];
    for (; b < m; b++)
        sum += y[b].value * y[b].value;
    return sum;
}

/* base^times by squaring, in libsvm's order of multiplications. */
static double power(double base, int times)
{
    double tmp = base, ret = 1.0;
    for (int t = times; t > 0; t /= 2) {
        if (t % 2 == 1)
            ret *= tmp;
        tmp = tmp * tmp;
    }
    return ret;
}

static double kernel(const VmafSvm *s, const double *x, unsigned n, const VmafSvmNode *y,
                     size_t m)
{
    switch (s->kernel) {
    case VMAF_SVM_KERNEL_LINEAR:
        return dot(x, n, y, m);
    case VMAF_SVM_KERNEL_POLY:
        return power(s->gamma * dot(x, n, y, m) + s->coef0, s->degree);
    case VMAF_SVM_KERNEL_RBF:
        return exp(-s->gamma * squared_distance(x, n, y, m));
    case VMAF_SVM_KERNEL_SIGMOID:
        return tanh(s->gamma * dot(x, n, y, m) + s->coef0);
    }
    return NAN;
}

double vmaf_svm_predict(const VmafSvm *svm, const double *x, unsigned n)
{
    double sum = 0.0;
    for (unsigned i = 0; i < svm->n_sv; i++) {
        const size_t b = svm->sv_start[i];
        const double k = kernel(svm, x, n, svm->node + b, svm->sv_start[i + 1] - b);
        sum += svm->coef[i] * k;
    }
    sum -= svm->rho;
    return sum;
}
