/* Support vector regression as the libsvm model text describes it: the
 * parser for the text embedded in a VMAF model and the predictor. */
#ifndef LIBVMAF_SRC_MODEL_SVM_H
#define LIBVMAF_SRC_MODEL_SVM_H

#include <math.h>
#include <stddef.h>

/* Limits on what a model may declare; real models stay far below them, and
 * anything above is refused before memory is sized from it. */
#define VMAF_SVM_MAX_SV 1000000u
#define VMAF_SVM_MAX_DEGREE 64
/* Largest magnitude accepted for any number of a model: far above every real
 * model, small enough that the arithmetic of a prediction cannot overflow for
 * features of ordinary size. */
#define VMAF_MODEL_MAX_ABS 1e15
/* Digits to print a refused value with: all of them near the limit, where
 * "%g" would show 1e15 + 0.125 as "1e+15", the limit itself. */
#define VMAF_MODEL_ABS_DIGITS(v) (fabs(v) < 1e16 ? 17 : 6)

enum VmafSvmType {
    VMAF_SVM_EPSILON_SVR,
    VMAF_SVM_NU_SVR,
};

enum VmafSvmKernel {
    VMAF_SVM_KERNEL_LINEAR,
    VMAF_SVM_KERNEL_POLY,
    VMAF_SVM_KERNEL_RBF,
    VMAF_SVM_KERNEL_SIGMOID,
};

typedef struct VmafSvmNode {
    int index; /* 1-based feature index */
    double value;
} VmafSvmNode;

typedef struct VmafSvm {
    enum VmafSvmType type;
    enum VmafSvmKernel kernel;
    int degree;
    double gamma, coef0, rho;
    unsigned n_sv;
    double *coef;       /* n_sv */
    size_t *sv_start;   /* n_sv + 1 offsets into node */
    VmafSvmNode *node;  /* every support vector's entries, ascending index */
} VmafSvm;

/* Parses libsvm model text of len bytes. Support vectors may only use
 * indices 1..n_features. On failure returns -EINVAL (or -ENOMEM) and writes
 * "line N: what is wrong" into why. */
int vmaf_svm_parse(VmafSvm **svm, const char *text, size_t len, unsigned n_features,
                   char *why, size_t why_len);

void vmaf_svm_destroy(VmafSvm *svm);

/* Decision value of a regression model for the dense vector x[0..n-1]
 * (feature index i+1 holds x[i]), summed in libsvm's order so that the
 * result has the same bits as libsvm's svm_predict(). */
double vmaf_svm_predict(const VmafSvm *svm, const double *x, unsigned n);

#endif /* LIBVMAF_SRC_MODEL_SVM_H */
