/**
 * The developers' rule "no function over 100 lines" (issue 9), measured with TypeScript's
 * compiler API: the body of every function declaration, method, constructor, accessor, function
 * expression and arrow function in host/ (outside the generated codecs), from its opening to its
 * closing brace. A function holding nested functions counts their lines too: the reader of the
 * outer one reads them.
 *
 * Known exceptions sit in {@link ALLOWED} with the reason and who removes them; an entry whose
 * function is back under the limit fails the test, so the list only shrinks.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { GENERATED_FOLDER, type HostSource, hostSources, isUnder } from './host-sources.js';

const MAX_BODY_LINES = 100;

/** `path#name` of functions allowed over the limit, each with its reason. */
const ALLOWED: Record<string, string> = {};

interface MeasuredFunction {
  key: string;
  lines: number;
}

/** A readable name: the declared name, else the variable or property the function is assigned to. */
function functionName(node: ts.FunctionLikeDeclaration, sourceFile: ts.SourceFile): string {
  const own = node.name !== undefined ? node.name.getText(sourceFile) : undefined;
  const parent = node.parent;
  let name = own;
  if (name === undefined && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) {
    name = parent.name.getText(sourceFile);
  }
  if (name === undefined && ts.isConstructorDeclaration(node)) name = 'constructor';
  if (name === undefined) name = `<anonymous@${sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1}>`;
  const owner = ts.isClassLike(parent) && parent.name !== undefined ? `${parent.name.text}.` : '';
  return owner + name;
}

function measure(source: HostSource): MeasuredFunction[] {
  const { sourceFile } = source;
  const measured: MeasuredFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const body = node.body as ts.Node;
      const first = sourceFile.getLineAndCharacterOfPosition(body.getStart(sourceFile)).line;
      const last = sourceFile.getLineAndCharacterOfPosition(body.getEnd()).line;
      measured.push({ key: `${source.path}#${functionName(node as ts.FunctionLikeDeclaration, sourceFile)}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return measured;
}

const measuredFunctions = hostSources()
  .filter((source) => !isUnder(source.path, GENERATED_FOLDER))
  .flatMap(measure);

describe('function size', () => {
  it(`no function body in host/ is over ${MAX_BODY_LINES} lines, except the allowlisted ones`, () => {
    const tooLong = measuredFunctions
      .filter((fn) => fn.lines > MAX_BODY_LINES && ALLOWED[fn.key] === undefined)
      .map((fn) => `${fn.key}: ${fn.lines} lines`);
    expect(tooLong).toEqual([]);
  });

  it('every allowlisted function still exists and is still over the limit (the list only shrinks)', () => {
    const stale = Object.keys(ALLOWED).filter((key) => !measuredFunctions.some((fn) => fn.key === key && fn.lines > MAX_BODY_LINES));
    expect(stale).toEqual([]);
  });

  it('measures the body of functions, methods and arrow functions', () => {
    const keys = new Set(measuredFunctions.map((fn) => fn.key));
    expect(keys.has('host/log/unified-log.ts#UnifiedLog.appendAsLeader')).toBe(true);
    expect(keys.has('host/log/segment-list.ts#floorSegmentIndex')).toBe(true);
    expect(measuredFunctions.find((fn) => fn.key === 'host/log/segment-list.ts#floorSegmentIndex')!.lines).toBeGreaterThan(10);
  });
});
