/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/spec'],
  testMatch: ['**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true }] },
  collectCoverage: true,
  collectCoverageFrom: ['lib/**/*.ts', '!lib/index.ts', '!lib/cli.ts'],
  coverageReporters: ['text-summary'],
  coverageThreshold: { global: { lines: 90 } },
  testTimeout: 20000,
};
