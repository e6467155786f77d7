// ESLint: typescript-eslint's type-checked recommended rules over every TypeScript file; formatting
// is prettier's (npm run format), so no stylistic rules here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The kernel stands alone (`npm run check:kernel` proves it in a copy without the rest): a file in
 * kernel/ imports only kernel/ and packages; a test in test/kernel/ imports only kernel/,
 * test/kernel/ and the three shared helpers that import nothing but the kernel (and Node). Nothing from plugins/,
 * drivers/, server/ or the test helpers built on them (test/helpers/server.ts, test/drivers/**).
 * Relative imports are matched by how far up they go: a file `depth` folders below kernel/ leaves it
 * with depth + 1 '../'; the package's own name (`objectql`, `objectql/...`) is the server, or dist/.
 */
const MAX_DEPTH = 6;
const up = (n) => `^(\\.\\./){${n}}\\.\\.`;
const ownPackage = { group: ['objectql', 'objectql/*'], message: "The kernel stands alone: not through the package's own name." };
const standAlone = (files, regex, message) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: [ownPackage, { regex, message }] }] },
});
const below = (folder, depth) => [`${folder}/${'*/'.repeat(depth)}*.ts`];
const kernelAlone = Array.from({ length: MAX_DEPTH }, (_, depth) => [
  standAlone(
    below('kernel', depth),
    `${up(depth)}(/(?!kernel(/|$))|$)`,
    'kernel/ stands alone: it imports kernel/ and packages only, never plugins/, drivers/, server/ (npm run check:kernel).',
  ),
  standAlone(
    below('test/kernel', depth),
    `${up(depth)}(/(?!kernel(/|$)|helpers/(rejection|services|fault-proxy)$|\\.\\./kernel(/|$))|$)`,
    'test/kernel/ tests the kernel alone: it imports kernel/, test/kernel/ and test/helpers/{rejection,services,fault-proxy} only; tests of the assembled server go to test/server/.',
  ),
]).flat();

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'uploads/', 'coverage/', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `_name` marks a parameter or binding kept for its position (a callback's signature, a rest destructuring).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  ...kernelAlone,
  standAlone(
    ['test/helpers/rejection.ts', 'test/helpers/services.ts', 'test/helpers/fault-proxy.ts'],
    '^\\.\\.?/(?!\\.\\./kernel(/|$))',
    'A helper of the kernel tests imports the kernel only (npm run check:kernel copies it without the rest).',
  ),
  {
    // The composition root loads each built-in plugin and driver on first use (knex-style): a
    // synchronous require() is that lazy load, since a datasource's driver is looked up synchronously.
    files: ['server/builtins.ts'],
    rules: { '@typescript-eslint/no-require-imports': ['error', { allow: ['^\\.\\./(plugins|drivers)/[\\w-]+$'] }] },
  },
  {
    // A Redis store (and ioredis with it) is loaded only when one is configured; a synchronous
    // require() is that lazy load, as a relative import() fails under the tests' CommonJS loader.
    files: ['plugins/auth/index.ts', 'plugins/rate-limit/index.ts'],
    rules: { '@typescript-eslint/no-require-imports': ['error', { allow: ['^\\./redis-store$'] }] },
  },
  {
    // graphql-jit is loaded at the first compilation, which happens inside a synchronous lookup.
    files: ['plugins/graphql/document.ts'],
    rules: { '@typescript-eslint/no-require-imports': ['error', { allow: ['^graphql-jit$'] }] },
  },
  {
    // Tests read JSON answers of a server under test: untyped by nature, asserted field by field.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
