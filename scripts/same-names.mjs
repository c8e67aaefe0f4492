// esbuild's keepNames follows each function declaration with `__name(f,"f")`: the name the function keeps should
// the bundler rename it (round -> round2). Where it did not, the call redefines a property to the value it
// holds: about 630 such calls in dist/analyze.cjs, run on every start. They are blanked here; the calls of
// renamed functions and every other form stay.

/** `;` or `}` (a statement ends there), then a call on an identifier with its own name as the name, then `;`. */
const SAME_NAME_CALL = /(?<=[;}])__name\(([A-Za-z_$][\w$]*),"([\w$]+)"\);/g;

/**
 * `code` with each statement `__name(f,"f");` that names a function declared as `function f`, `async function f`
 * or `function* f` replaced by as many spaces: every column stays where it was, so the source map still holds.
 */
export function blankSameNameCalls(code) {
  let blanked = 0;
  const out = code.replace(SAME_NAME_CALL, (call, target, name) => {
    if (target !== name || !new RegExp(`function\\*?\\s*${name.replaceAll('$', '\\$')}\\(`).test(code)) return call;
    blanked++;
    return ' '.repeat(call.length);
  });
  return { code: out, blanked };
}
