/* SPDX-License-Identifier: MIT */
/* Placeholder; replaced below. */
int main(void) { return 0; }
