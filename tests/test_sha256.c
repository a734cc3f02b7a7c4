/*
 * test_sha256.c -- SHA-256 against the FIPS 180-4 / NIST example vectors,
 * streaming in odd chunk sizes, and hashing files.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sha256.h"

static const struct {
    const char *msg;
    const char *hex;
} vectors[] = {
    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
     "klmnopqrlmnopqrsmnopqrstnopqrstu",
     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
};

Test(sha256, nist_vectors)
{
    char hex[SHA256_HEX_LEN];

    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        sha256_hex(vectors[i].msg, strlen(vectors[i].msg), hex);
        cr_expect_str_eq(hex, vectors[i].hex, "vector %zu", i);
    }
}

Test(sha256, one_million_a)
{
    const size_t n = 1000000;
    char *a = malloc(n), hex[SHA256_HEX_LEN];

    cr_assert_not_null(a);
    memset(a, 'a', n);
    sha256_hex(a, n, hex);
    cr_expect_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

/* Every padding boundary (55, 56, 63, 64 bytes...) hashed whole and in
 * chunks of every size from 1 to 70 must agree. */
Test(sha256, chunking_does_not_change_the_digest)
{
    unsigned char msg[200];

    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (unsigned char)(i * 7 + 3);
    for (size_t len = 0; len <= sizeof msg; len += 1) {
        char whole[SHA256_HEX_LEN];
        sha256_hex(msg, len, whole);
        for (size_t chunk = 1; chunk <= 70; chunk += 3) {
            struct sha256_ctx c;
            unsigned char d[SHA256_DIGEST_LEN];
            char hex[SHA256_HEX_LEN];
            sha256_init(&c);
            for (size_t off = 0; off < len; off += chunk)
                sha256_update(&c, msg + off, len - off < chunk ? len - off : chunk);
            sha256_final(&c, d);
            sha256_to_hex(d, hex);
            cr_assert_str_eq(hex, whole, "len %zu chunk %zu", len, chunk);
        }
    }
}

Test(sha256, file_matches_buffer_and_errors_name_the_file)
{
    char path[] = "/tmp/test_sha256.XXXXXX", hex[SHA256_HEX_LEN], want[SHA256_HEX_LEN];
    int fd = mkstemp(path);
    struct err e;
    static const char text[] = "version: 1\ntests: []\n";

    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    sha256_hex(text, strlen(text), want);
    cr_expect_eq(sha256_file(path, hex, &e), 0);
    cr_expect_str_eq(hex, want);
    unlink(path);
    cr_expect_eq(sha256_file(path, hex, &e), -1);
    cr_expect_str_eq(hex, "");
    cr_expect(strstr(e.msg, "cannot read '") == e.msg && strstr(e.msg, "No such file"),
              "%s", e.msg);
    cr_expect_eq(sha256_file("/tmp", hex, &e), -1, "a directory is not a file");
    cr_expect_str_eq(e.msg, "cannot read '/tmp': Is a directory");
}
