// The import graph of src/, scripts/ and packages/ (`npm run graph`, in pretest): no cycles, and the rooms'
// directions the README's layout section describes. test/unit/architecture/ holds the same directions as tests.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    { name: 'not-to-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
    {
      name: 'scalars-import-nothing',
      comment: 'scalars/ (dates, GUIDs, booleans) is used by every layer and the client: it imports nothing.',
      severity: 'error',
      from: { path: '^src/scalars/' },
      to: { pathNot: '^src/scalars/' },
    },
    {
      name: 'engine-without-wire',
      comment: 'reports/ (the pure engine) knows nothing of HTTP, SOAP, services, formats or auth.',
      severity: 'error',
      from: { path: '^src/reports/' },
      to: { path: '^src/(http|services|soap|formats|auth)/|^src/app\\.ts$' },
    },
    {
      name: 'formats-without-wire',
      severity: 'error',
      from: { path: '^src/formats/' },
      to: { path: '^src/(http|services|soap)/|^src/app\\.ts$' },
    },
    {
      name: 'wire-without-reports',
      comment: 'http/ (the wire pipeline) imports neither reports/ nor services/: src/app.ts wires them.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(reports|services)/|^src/app\\.ts$' },
    },
    {
      name: 'config-and-ops-without-wire',
      comment: 'config.ts and ops/ get what they need of the wire from src/app.ts.',
      severity: 'error',
      from: { path: '^src/config\\.ts$|^src/config-parsers\\.ts$|^src/ops/' },
      to: { path: '^src/(http|soap)/' },
    },
    {
      name: 'server-without-tools',
      comment: 'The server imports nothing of the packages (the migration tools are a package of their own).',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(packages|scripts|test)/' },
    },
    {
      name: 'tools-through-declared-exports',
      comment: 'The migration tools use the service only through src/tooling-exports.ts.',
      severity: 'error',
      from: { path: '^packages/migration-tools/(src|scripts)/' },
      to: { path: '^(src|scripts|test)/', pathNot: '^src/tooling-exports\\.ts$' },
    },
    {
      name: 'tool-tests-through-declared-exports',
      comment: "The tools' tests: the declared exports and the server's test helpers (test/support/).",
      severity: 'error',
      from: { path: '^packages/migration-tools/test/' },
      to: { path: '^(src|scripts|test)/', pathNot: '^src/tooling-exports\\.ts$|^test/support/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^generated/|node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
