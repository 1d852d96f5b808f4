// SPDX-License-Identifier: GPL-2.0
/*
 * fscrypt-key: the fscrypt ioctls from the shell (there is no fscryptctl
 * package).  A helper, not a test: it is not in guest/TESTS.
 *
 *   fscrypt-key add PATH            add the fixed test key to PATH's fs,
 *                                   print its identifier
 *   fscrypt-key set DIR ID          set a v2 policy with key ID on empty DIR
 *   fscrypt-key set-v1-nokey DIR    set a v1 policy whose key no keyring has
 *   fscrypt-key remove PATH ID      remove key ID, print the status flags
 *   fscrypt-key setup DIR           mkdir DIR, add the key, set a v2 policy
 */
#include <stdio.h>
#include <sys/stat.h>
#include "fscrypt.h"

static int fail(const char *what, int err)
{
	fprintf(stderr, "fscrypt-key: %s: %s\n", what, strerror(err));
	return 1;
}

int main(int argc, char **argv)
{
	unsigned char id[FSCRYPT_KEY_IDENTIFIER_SIZE];
	char hex[2 * FSCRYPT_KEY_IDENTIFIER_SIZE + 1];
	unsigned int status = 0;
	int err;

	if (argc == 3 && !strcmp(argv[1], "add")) {
		err = fscrypt_add_key(argv[2], id);
		if (err)
			return fail("FS_IOC_ADD_ENCRYPTION_KEY", err);
		fscrypt_id_hex(id, hex);
		printf("%s\n", hex);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "set")) {
		if (fscrypt_id_parse(argv[3], id))
			return fail("key identifier", EINVAL);
		err = fscrypt_set_policy_v2(argv[2], id);
		return err ? fail("FS_IOC_SET_ENCRYPTION_POLICY", err) : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "set-v1-nokey")) {
		err = fscrypt_set_policy_v1_nokey(argv[2]);
		return err ? fail("FS_IOC_SET_ENCRYPTION_POLICY", err) : 0;
	}
	if (argc == 4 && !strcmp(argv[1], "remove")) {
		if (fscrypt_id_parse(argv[3], id))
			return fail("key identifier", EINVAL);
		err = fscrypt_remove_key(argv[2], id, &status);
		if (err)
			return fail("FS_IOC_REMOVE_ENCRYPTION_KEY", err);
		printf("removal status 0x%x\n", status);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "setup")) {
		if (mkdir(argv[2], 0755))
			return fail(argv[2], errno);
		err = fscrypt_add_key(argv[2], id);
		if (err)
			return fail("FS_IOC_ADD_ENCRYPTION_KEY", err);
		err = fscrypt_set_policy_v2(argv[2], id);
		if (err)
			return fail("FS_IOC_SET_ENCRYPTION_POLICY", err);
		fscrypt_id_hex(id, hex);
		printf("%s\n", hex);
		return 0;
	}
	fprintf(stderr, "usage: fscrypt-key add PATH | set DIR ID | set-v1-nokey DIR |"
		" remove PATH ID | setup DIR\n");
	return 2;
}
