# txpath: `make run` builds and runs the demo; `make test` builds and runs
# every test three times: plain, ASan+UBSan, TSan.
JOBS ?= 2
CMAKE_FLAGS ?=

.PHONY: all deps build run test test-plain test-asan test-tsan clean

all: build

deps:
	@sh scripts/deps.sh

build: deps
	@cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build build -j $(JOBS)

run: build
	./build/txpath demo

define variant
	@cmake -S . -B $(1) -DTXP_SANITIZE=$(2) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(1) -j $(JOBS)
	cd $(1) && ctest --output-on-failure -j $(JOBS) $(3)
endef

test: test-plain test-asan test-tsan

test-plain: build
	cd build && ctest --output-on-failure -j $(JOBS)

test-asan: deps
	$(call variant,build-asan,address,)

test-tsan: deps
	$(call variant,build-tsan,thread,)

clean:
	rm -rf build build-asan build-tsan
