// esbuild plugin for scripts/build.mjs: each named package is bundled behind a stand-in with the same exports, which
// requires the package on the first call of one of its functions or read of one of its objects. For CommonJS packages
// whose loading is costly work that start-up never uses. Each copy of a package in node_modules gets its own stand-in.
import { createRequire } from 'node:module';

export function loadOnFirstUse(packages) {
  const filter = new RegExp(`^(${packages.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`);
  return {
    name: 'load-on-first-use',
    setup(esbuild) {
      esbuild.onResolve({ filter }, async (args) => {
        if (args.pluginData === 'real') return undefined;
        const real = await esbuild.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: 'real' });
        if (real.errors.length) return { errors: real.errors };
        return { path: real.path, namespace: 'load-on-first-use', pluginData: { specifier: args.path, resolveDir: args.resolveDir } };
      });
      esbuild.onLoad({ filter: /.*/, namespace: 'load-on-first-use' }, (args) => {
        const exported = createRequire(args.path)(args.path);
        const members = Object.keys(exported).map((key) => typeof exported[key] === 'function'
          ? `exports[${JSON.stringify(key)}] = function () { const m = load(); return m[${JSON.stringify(key)}].apply(m, arguments); };`
          : `Object.defineProperty(exports, ${JSON.stringify(key)}, { enumerable: true, get: () => load()[${JSON.stringify(key)}] });`);
        return {
          contents: `let real;\nconst load = () => real ??= require(${JSON.stringify(args.pluginData.specifier)});\n${members.join('\n')}\n`,
          resolveDir: args.pluginData.resolveDir,
          pluginData: 'real',
          loader: 'js',
        };
      });
    },
  };
}
