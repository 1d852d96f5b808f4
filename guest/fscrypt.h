/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fscrypt ioctls for the guest tests (no fscryptctl in Debian): add a v2
 * key, set a v2 (or keyless v1) policy on an empty directory, remove the
 * key.  Every function returns 0 or an errno.
 */
#ifndef NDT_FSCRYPT_H
#define NDT_FSCRYPT_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/fscrypt.h>

/* A fixed test key: the same on every run, so runs are comparable. */
static inline void fscrypt_test_key(unsigned char key[64])
{
	int i;

	for (i = 0; i < 64; i++)
		key[i] = (unsigned char)(0x6e + 7 * i);
}

/* Add the test key to the filesystem of @path; its identifier in @id. */
static inline int fscrypt_add_key(const char *path,
				  unsigned char id[FSCRYPT_KEY_IDENTIFIER_SIZE])
{
	struct fscrypt_add_key_arg *arg;
	int fd, err = 0;

	arg = calloc(1, sizeof(*arg) + 64);
	if (!arg)
		return ENOMEM;
	arg->key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	arg->raw_size = 64;
	fscrypt_test_key(arg->raw);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		err = errno;
	} else {
		if (ioctl(fd, FS_IOC_ADD_ENCRYPTION_KEY, arg))
			err = errno;
		else
			memcpy(id, arg->key_spec.u.identifier,
			       FSCRYPT_KEY_IDENTIFIER_SIZE);
		close(fd);
	}
	free(arg);
	return err;
}

/* Remove the key @id; *status gets FSCRYPT_KEY_REMOVAL_STATUS_FLAG_*. */
static inline int fscrypt_remove_key(const char *path,
				     const unsigned char id[FSCRYPT_KEY_IDENTIFIER_SIZE],
				     unsigned int *status)
{
	struct fscrypt_remove_key_arg arg;
	int fd, err = 0;

	memset(&arg, 0, sizeof(arg));
	arg.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	memcpy(arg.key_spec.u.identifier, id, FSCRYPT_KEY_IDENTIFIER_SIZE);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno;
	if (ioctl(fd, FS_IOC_REMOVE_ENCRYPTION_KEY, &arg))
		err = errno;
	else if (status)
		*status = arg.removal_status_flags;
	close(fd);
	return err;
}

/* FS_IOC_SET_ENCRYPTION_POLICY on @dir with @policy (v1 or v2); 0 or errno. */
static inline int fscrypt_set_policy(const char *dir, const void *policy)
{
	int fd, err = 0;

	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return errno;
	if (ioctl(fd, FS_IOC_SET_ENCRYPTION_POLICY, policy))
		err = errno;
	close(fd);
	return err;
}

/* Set a v2 policy with key @id on the empty directory @dir. */
static inline int fscrypt_set_policy_v2(const char *dir,
					const unsigned char id[FSCRYPT_KEY_IDENTIFIER_SIZE])
{
	struct fscrypt_policy_v2 p;

	memset(&p, 0, sizeof(p));
	p.version = FSCRYPT_POLICY_V2;
	p.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS;
	p.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS;
	p.flags = FSCRYPT_POLICY_FLAGS_PAD_32;
	memcpy(p.master_key_identifier, id, FSCRYPT_KEY_IDENTIFIER_SIZE);
	return fscrypt_set_policy(dir, &p);
}

/*
 * Set a v1 policy naming a key descriptor that no keyring holds: the
 * kernel accepts it without the key (v2 requires the key), and the
 * directory is then in no-key mode from the start.  Needs no crypto
 * algorithms in the kernel, so it works where adding a key cannot.
 */
static inline int fscrypt_set_policy_v1_nokey(const char *dir)
{
	struct fscrypt_policy_v1 p;

	memset(&p, 0, sizeof(p));
	p.version = FSCRYPT_POLICY_V1;
	p.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS;
	p.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS;
	p.flags = FSCRYPT_POLICY_FLAGS_PAD_32;
	memcpy(p.master_key_descriptor, "ndt-none", FSCRYPT_KEY_DESCRIPTOR_SIZE);
	return fscrypt_set_policy(dir, &p);
}

static inline void fscrypt_id_hex(const unsigned char *id, char *hex)
{
	int i;

	for (i = 0; i < FSCRYPT_KEY_IDENTIFIER_SIZE; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
}

static inline int fscrypt_id_parse(const char *hex, unsigned char *id)
{
	int i;
	unsigned int b;

	if (strlen(hex) != 2 * FSCRYPT_KEY_IDENTIFIER_SIZE)
		return EINVAL;
	for (i = 0; i < FSCRYPT_KEY_IDENTIFIER_SIZE; i++) {
		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return EINVAL;
		id[i] = b;
	}
	return 0;
}

#endif
