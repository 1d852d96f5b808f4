# Shared rules for the folders of guest-side C programs (guest/, nfs-test/,
# bench/), included by their Makefiles after they set OUT: every .c is one
# program, built on the host for the host's libc into $(OUT); the guest runs
# them from the host root shared over 9p.
CC ?= gcc
CFLAGS ?= -O2 -g -Wall -Wextra -Werror

PROGS := $(basename $(wildcard *.c))
HEADERS := $(wildcard *.h) $(wildcard ../guest/*.h)

all: $(addprefix $(OUT)/,$(PROGS))

$(OUT)/%: %.c $(HEADERS) | $(OUT)
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

$(OUT):
	mkdir -p $@

clean:
	rm -rf $(OUT)

.PHONY: all clean
