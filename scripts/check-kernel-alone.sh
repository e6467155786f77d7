#!/usr/bin/env bash
# Proves that the kernel stands alone (npm run check:kernel): kernel/ and its tests, copied into a
# temporary directory that has no plugins/, drivers/ or server/, type-check and pass there. A kernel
# file or a kernel test that imports any of them fails here (the import does not resolve), as it
# fails `npm run lint` (no-restricted-imports in eslint.config.mjs) in the full tree.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/objectql-kernel-alone.XXXXXX")"
trap 'rm -rf "$work"' EXIT

repo="$work/repo"
mkdir -p "$repo/test/helpers" "$repo/docs"
cp -R "$root/kernel" "$repo/kernel"
# The service specification the kernel implements and the codes it adds beside it (test/kernel/errors.test.ts checks the error table against both).
cp "$root/docs/spec.md" "$root/docs/design.md" "$repo/docs/"
cp -R "$root/test/kernel" "$root/test/fixtures" "$repo/test/"
# The only shared test helpers a kernel test may use (they import nothing but the kernel and Node).
cp "$root/test/helpers/rejection.ts" "$root/test/helpers/services.ts" "$root/test/helpers/fault-proxy.ts" "$repo/test/helpers/"
cp "$root/package.json" "$root/tsconfig.json" "$repo/"
ln -s "$root/node_modules" "$repo/node_modules"

cd "$repo"
# The project's compiler options over the kernel and its tests (the fixtures are data, loaded at run time).
# No declarations: through the node_modules link, TypeScript would name types by their real path
# outside this directory and call them not portable (the full tree's typecheck checks declarations).
cat > tsconfig.kernel.json <<'JSON'
{ "extends": "./tsconfig.json", "compilerOptions": { "declaration": false }, "include": ["kernel", "test/kernel", "test/helpers"] }
JSON
echo "check:kernel: type-checking kernel/ and test/kernel/ without plugins/, drivers/, server/ (in $repo)"
node_modules/.bin/tsc -p tsconfig.kernel.json --noEmit
echo "check:kernel: running test/kernel"
node_modules/.bin/mocha --no-config --require tsx/cjs --extension ts --timeout 20000 --recursive --reporter dot 'test/kernel/**/*.test.ts'
echo "check:kernel: the kernel stands alone"
