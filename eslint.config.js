import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'reports/**', 'workloads/**', 'coverage/**', 'scratch/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': 'off',
    },
  },
  {
    // The runtime never imports the harness (spec §1).
    files: ['runtime/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/harness/**'], message: 'runtime must not import harness' }] }],
    },
  },
  {
    files: ['bin/**/*.mjs', 'bin/**/*.cjs', 'scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['bin/**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', exports: 'writable', module: 'writable', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // bench view's page script runs in the browser.
    files: ['harness/view/ui/**/*.js'],
    languageOptions: { globals: { fetch: 'readonly', location: 'readonly', addEventListener: 'readonly', removeEventListener: 'readonly', document: 'readonly' } },
  },
);
