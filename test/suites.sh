# The meson test suites that the scripts run besides a build's whole suite:
# defined here once, sourced by .ci/run (its sanitizer stages) and by
# test/cuda/gpu_suite.sh (its SUITES default). A new suite that should run
# under a sanitizer or on the GPU machine is added here.

# AddressSanitizer + UndefinedBehaviorSanitizer, on a build without CUDA.
VMAF_SUITES_ASAN="core ssim motion vif adm psnr ciede psnr_hvs ms_ssim vmaf checkasm output model cli api"
# ThreadSanitizer: the suites that run worker threads (the thread pool and
# team, frame-parallel scoring with the previous frames handed over, the
# tool's reader threads, the API contract).
VMAF_SUITES_TSAN="core ssim motion psnr vmaf cli api"
# Left out of both sanitizer stages: every golden vector through every
# run (minutes under a sanitizer); the quick parity tests of suite vmaf
# cover five of the vectors there.
VMAF_SUITES_NOT_SANITIZED="golden"
# The GPU machine (test/cuda/gpu_suite.sh).
VMAF_SUITES_GPU="cuda cuda_host ssim"

# Prints "--suite A --suite B ..." for a list such as "$VMAF_SUITES_ASAN",
# then "--no-suite X" for each of a second list if given, one argument a
# line (read them with mapfile).
vmaf_suite_args() {
    for s in $1; do printf -- '--suite\n%s\n' "$s"; done
    for s in ${2:-}; do printf -- '--no-suite\n%s\n' "$s"; done
}
