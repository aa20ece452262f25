module.exports = {
  root: true,
  parser: '@typescript-eslint/parser',
  parserOptions: { ecmaVersion: 2022, sourceType: 'module' },
  plugins: ['@typescript-eslint'],
  extends: ['eslint:recommended', 'plugin:@typescript-eslint/recommended'],
  env: { node: true, es2022: true, jest: true },
  ignorePatterns: ['dist/', 'node_modules/', 'coverage/'],
  rules: {
    '@typescript-eslint/no-unused-vars': [
      'error',
      { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
    ],
    '@typescript-eslint/consistent-type-imports': 'error',
    eqeqeq: ['error', 'always'],
    'no-console': ['error', { allow: ['error'] }],
  },
  overrides: [
    { files: ['bench/**', 'lib/gateway/cli.ts', 'fixtures/**'], rules: { 'no-console': 'off' } },
    {
      // Functions a reader can hold, lines within the formatter's width (comments included).
      files: ['lib/**/*.ts'],
      rules: {
        'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
        'max-len': [
          'error',
          {
            code: 120,
            tabWidth: 2,
            ignoreComments: false,
            ignoreStrings: false,
            ignoreTemplateLiterals: false,
            ignoreRegExpLiterals: true,
          },
        ],
      },
    },
  ],
};
