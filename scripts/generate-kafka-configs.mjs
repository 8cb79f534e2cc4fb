#!/usr/bin/env node
/**
 * Generates host/config/generated/kafka-configs.json (and the types, kafka-configs.ts): every broker config and every topic config of
 * Apache Kafka (name, ConfigDef type, default as Kafka prints it, numeric bounds / accepted values,
 * the first sentence of Kafka's documentation, and each topic config's broker synonyms), read from
 * Kafka's own config definitions.
 *
 *   node scripts/generate-kafka-configs.mjs <kafka source tree or git dir> [git ref]
 *
 * A git directory (e.g. the fetched /work/.mirror/apache+kafka/repo) is read at the ref (default
 * HEAD) with `git archive`; a checked-out tree is read as it is. The output is committed: the
 * project builds without Kafka's sources.
 *
 * How: a small reader of the Java subset these files use. Every `static final` constant of the
 * scanned modules is collected (by class and name), every `.define(...)` of the ConfigDefs that
 * AbstractKafkaConfig.CONFIG_DEF merges (broker) and of LogConfig's topic ConfigDef is parsed, and
 * arguments are evaluated: string concatenation, integer arithmetic (BigInt, Java's long), casts,
 * TimeUnit conversions, Long/Integer.MAX_VALUE, list helpers; validators atLeast / between / in.
 * What cannot be evaluated (a default computed by a method) comes from {@link KNOWN_CALLS}, values
 * read in Kafka's own code and cited there; the script fails on anything else it cannot evaluate.
 * defineInternal configs are left out, as Kafka's documentation leaves them out.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

const MODULES = [
  'clients/src/main/java', 'server/src/main/java', 'server-common/src/main/java', 'storage/src/main/java',
  'raft/src/main/java', 'group-coordinator/src/main/java', 'transaction-coordinator/src/main/java',
  'metadata/src/main/java', 'coordinator-common/src/main/java', 'share-coordinator/src/main/java',
];

/** The classes whose ConfigDefs AbstractKafkaConfig.CONFIG_DEF merges (Kafka 3.9). */
const BROKER_CONFIG_CLASSES = [
  'RemoteLogManagerConfig', 'ZkConfigs', 'ServerConfigs', 'KRaftConfigs', 'SocketServerConfigs', 'ReplicationConfigs',
  'GroupCoordinatorConfig', 'CleanerConfig', 'LogConfig', 'ShareGroupConfig', 'ShareCoordinatorConfig',
  'TransactionLogConfig', 'TransactionStateManagerConfig', 'QuorumConfig', 'MetricConfigs', 'QuotaConfig',
  'BrokerSecurityConfigs', 'DelegationTokenManagerConfigs', 'PasswordEncoderConfigs',
];

/**
 * Values of method calls the reader does not evaluate, as Kafka's code computes them:
 * CompressionType's levels (clients' GzipCompression / Lz4Compression / ZstdCompression: gzip
 * Deflater.DEFAULT_COMPRESSION -1 or 1..9; lz4 1..17 default 9; zstd Zstd.minCompressionLevel()
 * -131072 .. 22 default 3), BrokerCompressionType.names(), MetadataVersion's version strings.
 */
const KNOWN_CALLS = {
  'CompressionType.GZIP.defaultLevel()': -1n,
  'CompressionType.LZ4.defaultLevel()': 9n,
  'CompressionType.ZSTD.defaultLevel()': 3n,
  'CompressionType.GZIP.levelValidator()': { validator: { oneOfRange: [-1n, -1n], min: 1n, max: 9n, gzip: true } },
  'CompressionType.LZ4.levelValidator()': { validator: { min: 1n, max: 17n } },
  'CompressionType.ZSTD.levelValidator()': { validator: { min: -131072n, max: 22n } },
  'BrokerCompressionType.names().toArray(<opaque>)': ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'],
};

/**
 * Defaults computed by code the reader does not follow (class.config name -> Kafka's value, as
 * its documentation prints it).
 */
const KNOWN_DEFAULTS = {
  // SocketServerConfigs: every SecurityProtocol mapped to itself, in the order the docs print.
  'SocketServerConfigs.listener.security.protocol.map': 'SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT',
  'ReplicationConfigs.security.inter.broker.protocol': 'PLAINTEXT',
  // MetadataVersion.latestProduction() of the 3.9 release (the snapshot's trunk says 4.0-IV0).
  'ReplicationConfigs.inter.broker.protocol.version': '3.9-IV0',
  'GroupCoordinatorConfig.group.coordinator.rebalance.protocols': 'classic,consumer',
  'GroupCoordinatorConfig.offsets.topic.compression.codec': '0',
  'GroupCoordinatorConfig.group.consumer.assignors': 'org.apache.kafka.coordinator.group.assignor.UniformAssignor,org.apache.kafka.coordinator.group.assignor.RangeAssignor',
  'ShareCoordinatorConfig.share.coordinator.state.topic.compression.codec': '0',
  'MetricConfigs.metric.reporters': 'org.apache.kafka.common.metrics.JmxReporter',
  'MetricConfigs.metrics.recording.level': 'INFO',
  'BrokerSecurityConfigs.principal.builder.class': 'org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder',
  'BrokerSecurityConfigs.ssl.client.auth': 'none',
  // The JDK's KeyManagerFactory / TrustManagerFactory default algorithms.
  'BrokerSecurityConfigs.ssl.keymanager.algorithm': 'SunX509',
  'BrokerSecurityConfigs.ssl.trustmanager.algorithm': 'PKIX',
};

/** What could not be read; the script fails listing them all. */
const FAILURES = [];

// ---------------------------------------------------------------- reading the sources

function sourceTree(path, ref) {
  if (existsSync(join(path, 'clients'))) return { root: path, cleanup: () => {} };
  const root = mkdtempSync(join(tmpdir(), 'kafka-src-'));
  const tar = execFileSync('git', ['--git-dir', path, 'archive', ref, ...MODULES], { maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', root], { input: tar });
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

function javaFiles(directory) {
  const found = [];
  if (!existsSync(directory)) return found;
  for (const name of readdirSync(directory)) {
    const full = join(directory, name);
    if (statSync(full).isDirectory()) found.push(...javaFiles(full));
    else if (name.endsWith('.java')) found.push(full);
  }
  return found;
}

// ---------------------------------------------------------------- tokens and expressions

function tokenize(text) {
  const tokens = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) { i++; continue; }
    if (text.startsWith('//', i)) { i = text.indexOf('\n', i); if (i < 0) break; continue; }
    if (text.startsWith('/*', i)) { i = text.indexOf('*/', i + 2) + 2; continue; }
    if (c === '"') {
      if (text.startsWith('"""', i)) {
        const end = text.indexOf('"""', i + 3);
        tokens.push({ kind: 'str', value: text.slice(i + 3, end).replace(/^\s*\n/, '').replace(/\n\s*/g, ' ') });
        i = end + 3;
        continue;
      }
      let j = i + 1;
      let value = '';
      while (text[j] !== '"') {
        if (text[j] === '\\') {
          const e = text[j + 1];
          value += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          j += 2;
        } else value += text[j++];
      }
      tokens.push({ kind: 'str', value });
      i = j + 1;
      continue;
    }
    if (c === "'") {
      let j = i + 1;
      let value = text[j] === '\\' ? text[++j] : text[j];
      j += 2;
      tokens.push({ kind: 'str', value });
      i = j;
      continue;
    }
    const number = /^(0x[0-9a-fA-F_]+|\d[\d_]*\.?\d*([eE][+-]?\d+)?)[lLdDfF]?/.exec(text.slice(i, i + 40));
    if (/\d/.test(c) && number) {
      const raw = number[0].replace(/_/g, '');
      const isDouble = /[.eEdDfF]/.test(raw.replace(/^0x.*/, '')) && !/[lL]$/.test(raw);
      tokens.push({ kind: 'num', value: isDouble ? Number(raw.replace(/[dDfF]$/, '')) : BigInt(raw.replace(/[lL]$/, '')) });
      i += number[0].length;
      continue;
    }
    const word = /^[A-Za-z_$][\w$]*/.exec(text.slice(i, i + 200));
    if (word) { tokens.push({ kind: 'id', value: word[0] }); i += word[0].length; continue; }
    const op = /^(==|!=|<=|>=|&&|\|\||::|->|\+\+|--)/.exec(text.slice(i, i + 2));
    tokens.push({ kind: 'op', value: op ? op[0] : c });
    i += op ? op[0].length : 1;
  }
  return tokens;
}

/** Parses one expression from tokens[at]; returns [ast, next index]. */
function parseExpression(tokens, at) {
  const parser = { tokens, at };
  const ast = ternary(parser);
  return [ast, parser.at];
}
const peek = (p) => p.tokens[p.at];
const isOp = (p, value) => peek(p)?.kind === 'op' && peek(p).value === value;
function expect(p, value) {
  if (!isOp(p, value)) throw new Error(`expected ${value} at ${JSON.stringify(peek(p))}`);
  p.at++;
}
function ternary(p) {
  const condition = binary(p, 0);
  if (!isOp(p, '?')) return condition;
  p.at++;
  const yes = ternary(p);
  expect(p, ':');
  return { kind: 'ternary', condition, yes, no: ternary(p) };
}
const PRECEDENCE = [['||'], ['&&'], ['==', '!='], ['<', '>', '<=', '>='], ['+', '-'], ['*', '/', '%']];
function binary(p, level) {
  if (level === PRECEDENCE.length) return unary(p);
  let left = binary(p, level + 1);
  while (peek(p)?.kind === 'op' && PRECEDENCE[level].includes(peek(p).value)) {
    const op = p.tokens[p.at++].value;
    left = { kind: 'binary', op, left, right: binary(p, level + 1) };
  }
  return left;
}
function unary(p) {
  if (isOp(p, '-')) { p.at++; return { kind: 'neg', operand: unary(p) }; }
  if (isOp(p, '!')) { p.at++; return { kind: 'not', operand: unary(p) }; }
  if (isOp(p, '(') && p.tokens[p.at + 1]?.kind === 'id' && ['int', 'long', 'short', 'double', 'String'].includes(p.tokens[p.at + 1].value) && p.tokens[p.at + 2]?.value === ')') {
    const type = p.tokens[p.at + 1].value;
    p.at += 3;
    return { kind: 'cast', type, operand: unary(p) };
  }
  return postfix(p);
}
function argumentsOf(p) {
  expect(p, '(');
  const args = [];
  while (!isOp(p, ')')) {
    args.push(ternary(p));
    if (isOp(p, ',')) p.at++;
  }
  p.at++;
  return args;
}
function postfix(p) {
  let node = primary(p);
  for (;;) {
    if (isOp(p, '.')) {
      p.at++;
      if (isOp(p, '<')) { while (!isOp(p, '>')) p.at++; p.at++; }
      const name = p.tokens[p.at++].value;
      node = isOp(p, '(') ? { kind: 'call', target: node, name, args: argumentsOf(p) } : { kind: 'member', target: node, name };
    } else if (isOp(p, '::')) {
      p.at += 2;
      node = { kind: 'opaque' };
    } else if (isOp(p, '[')) {
      while (!isOp(p, ']')) p.at++;
      p.at++;
    } else return node;
  }
}
function primary(p) {
  const token = p.tokens[p.at++];
  if (token.kind === 'str') return { kind: 'lit', value: token.value };
  if (token.kind === 'num') return { kind: 'lit', value: token.value };
  if (token.kind === 'op' && token.value === '(') {
    const inner = ternary(p);
    expect(p, ')');
    return inner;
  }
  if (token.kind === 'id') {
    if (token.value === 'true' || token.value === 'false') return { kind: 'lit', value: token.value === 'true' };
    if (token.value === 'null') return { kind: 'lit', value: null };
    if (token.value === 'new') {
      let name = p.tokens[p.at++].value;
      while (isOp(p, '.')) { p.at++; name += '.' + p.tokens[p.at++].value; }
      if (isOp(p, '<')) { let depth = 0; do { if (isOp(p, '<')) depth++; if (isOp(p, '>')) depth--; p.at++; } while (depth > 0); }
      if (isOp(p, '[')) { while (!isOp(p, ']')) p.at++; p.at++; return { kind: 'opaque' }; }
      const args = argumentsOf(p);
      if (isOp(p, '{')) { let depth = 0; do { if (isOp(p, '{')) depth++; if (isOp(p, '}')) depth--; p.at++; } while (depth > 0); }
      return { kind: 'new', name, args };
    }
    if (isOp(p, '(')) return { kind: 'call', target: null, name: token.value, args: argumentsOf(p) };
    if (isOp(p, '->')) { p.at++; ternary(p); return { kind: 'opaque' }; }
    return { kind: 'name', name: token.value };
  }
  throw new Error(`unexpected token ${JSON.stringify(token)}`);
}

/** Source text of an AST, for KNOWN_CALLS keys and messages. */
function show(node) {
  switch (node.kind) {
    case 'lit': return typeof node.value === 'string' ? JSON.stringify(node.value) : String(node.value);
    case 'name': return node.name;
    case 'member': return `${show(node.target)}.${node.name}`;
    case 'call': return `${node.target ? show(node.target) + '.' : ''}${node.name}(${node.args.map(show).join(', ')})`;
    case 'new': return `new ${node.name}(${node.args.map(show).join(', ')})`;
    case 'binary': return `${show(node.left)} ${node.op} ${show(node.right)}`;
    case 'cast': return `(${node.type}) ${show(node.operand)}`;
    case 'neg': return `-${show(node.operand)}`;
    default: return `<${node.kind}>`;
  }
}

// ---------------------------------------------------------------- constants and evaluation

const UNKNOWN = Symbol('unknown');
const INTERFACE_FIELD_TYPES = new Set(['int', 'long', 'short', 'byte', 'double', 'boolean', 'String']);

/** Every `static final X NAME = expr;` of every scanned class: class -> name -> { ast, file }. */
function collectConstants(files) {
  const classes = new Map();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const className = file.split('/').pop().replace(/\.java$/, '');
    const tokens = tokenize(text);
    const constants = classes.get(className) ?? new Map();
    classes.set(className, constants);
    const isInterface = tokens.some((t, k) => t.value === 'interface' && tokens[k - 1]?.value === 'public');
    for (let i = 0; i < tokens.length; i++) {
      // An interface's fields are implicitly static final: `int LOG_OVERHEAD = ...;`
      if (isInterface && INTERFACE_FIELD_TYPES.has(tokens[i].value) && [';', '{', '}'].includes(tokens[i - 1]?.value) &&
        tokens[i + 1]?.kind === 'id' && tokens[i + 2]?.value === '=') {
        try {
          const [ast, next] = parseExpression(tokens, i + 3);
          if (tokens[next]?.value === ';' && !constants.has(tokens[i + 1].value)) constants.set(tokens[i + 1].value, { ast, className, tokens, file });
        } catch { /* not an expression we read */ }
        continue;
      }
      if (tokens[i].value !== 'final') continue;
      // final [static] Type NAME = expr ;   (Type may be generic or an array)
      let j = i + 1;
      if (tokens[j]?.value === 'static') j++;
      j++;
      if (tokens[j]?.value === '<') { let depth = 0; do { if (tokens[j].value === '<') depth++; if (tokens[j].value === '>') depth--; j++; } while (depth > 0); }
      if (tokens[j]?.value === '[') j += 2;
      if (tokens[j]?.kind !== 'id' || tokens[j + 1]?.value !== '=') continue;
      const name = tokens[j].value;
      try {
        const [ast, next] = parseExpression(tokens, j + 2);
        if (tokens[next]?.value === ';') constants.set(name, { ast, className, tokens, file });
      } catch { /* not an expression we read: left out */ }
    }
    constants.defineTokens = tokens;
    constants.file = file;
  }
  return classes;
}

function javaString(value) {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? value.toFixed(1) : String(value);
  if (Array.isArray(value)) return value.map(javaString).join(',');
  return String(value);
}

const TIME_UNIT_MS = { NANOSECONDS: 1e-6, MICROSECONDS: 1e-3, MILLISECONDS: 1, SECONDS: 1000, MINUTES: 60000, HOURS: 3600000, DAYS: 86400000 };
const TIME_UNIT_METHOD = { toNanos: 'NANOSECONDS', toMicros: 'MICROSECONDS', toMillis: 'MILLISECONDS', toSeconds: 'SECONDS', toMinutes: 'MINUTES', toHours: 'HOURS', toDays: 'DAYS' };
const JAVA_CONSTANTS = {
  'Long.MAX_VALUE': 2n ** 63n - 1n, 'Long.MIN_VALUE': -(2n ** 63n), 'Integer.MAX_VALUE': 2n ** 31n - 1n,
  'Integer.MIN_VALUE': -(2n ** 31n), 'Short.MAX_VALUE': 32767n, 'Double.MAX_VALUE': Number.MAX_VALUE,
  'ConfigDef.NO_DEFAULT_VALUE': UNKNOWN,
};

function makeEvaluator(classes) {
  const cache = new Map();
  const unique = new Map();
  for (const [className, constants] of classes) {
    for (const name of constants.keys()) unique.set(name, unique.has(name) ? null : className);
  }
  function constant(className, name) {
    const entry = classes.get(className)?.get(name);
    if (!entry) return UNKNOWN;
    const key = `${className}.${name}`;
    if (cache.has(key)) return cache.get(key);
    cache.set(key, UNKNOWN);
    const value = evaluate(entry.ast, className);
    cache.set(key, value);
    return value;
  }
  function evaluate(node, className) {
    switch (node.kind) {
      case 'lit': return node.value;
      case 'name': {
        if (classes.get(className)?.has(node.name)) return constant(className, node.name);
        const owner = unique.get(node.name);
        return owner ? constant(owner, node.name) : UNKNOWN;
      }
      case 'member': {
        const text = show(node);
        if (text in JAVA_CONSTANTS) return JAVA_CONSTANTS[text];
        const parts = text.split('.');
        if (node.name === 'name' && parts.length >= 3 && classes.has(parts[parts.length - 3])) {
          // An enum constant's `name` field, set from its constructor: PRODUCER("producer").name
          const file = readFileSync(classes.get(parts[parts.length - 3]).file, 'utf8');
          const match = new RegExp(`\\b${parts[parts.length - 2]}\\s*\\(\\s*(?:-?\\d+\\s*,\\s*)?"([^"]*)"`).exec(file);
          if (match) return match[1];
        }
        for (let k = parts.length - 2; k >= 0; k--) {
          if (classes.has(parts[k])) return constant(parts[k], parts[parts.length - 1]);
        }
        return UNKNOWN;
      }
      case 'cast': {
        const value = evaluate(node.operand, className);
        if (node.type === 'double' && typeof value === 'bigint') return Number(value);
        if ((node.type === 'int' || node.type === 'long') && typeof value === 'number') return BigInt(Math.trunc(value));
        return value;
      }
      case 'neg': {
        const value = evaluate(node.operand, className);
        return value === UNKNOWN ? UNKNOWN : -value;
      }
      case 'binary': return binaryValue(node, className);
      case 'ternary': return UNKNOWN;
      case 'call': return callValue(node, className);
      default: return UNKNOWN;
    }
  }
  function binaryValue(node, className) {
    const left = evaluate(node.left, className);
    const right = evaluate(node.right, className);
    if (left === UNKNOWN || right === UNKNOWN) return UNKNOWN;
    if (node.op === '+' && (typeof left === 'string' || typeof right === 'string')) return javaString(left) + javaString(right);
    const bothBig = typeof left === 'bigint' && typeof right === 'bigint';
    const a = bothBig ? left : Number(left);
    const b = bothBig ? right : Number(right);
    switch (node.op) {
      case '+': return a + b;
      case '-': return a - b;
      case '*': return a * b;
      case '/': return a / b;
      case '%': return a % b;
      default: return UNKNOWN;
    }
  }
  function callValue(node, className) {
    const text = show(node);
    if (text in KNOWN_CALLS) return KNOWN_CALLS[text];
    const target = node.target ? show(node.target) : '';
    const args = () => node.args.map((arg) => evaluate(arg, className));
    if (node.name in TIME_UNIT_METHOD && /^TimeUnit\.\w+$/.test(target)) {
      const [value] = args();
      if (value === UNKNOWN) return UNKNOWN;
      const ms = Number(value) * TIME_UNIT_MS[target.split('.')[1]] / TIME_UNIT_MS[TIME_UNIT_METHOD[node.name]];
      return BigInt(Math.trunc(ms));
    }
    if (/^(Arrays\.asList|List\.of|Collections\.singletonList|Utils\.mkList|Collections\.emptyList|Collections\.unmodifiableList)$/.test(`${target}.${node.name}`.replace(/^\./, ''))) {
      const values = args().flat();
      return values.includes(UNKNOWN) ? UNKNOWN : values;
    }
    if (target === 'String' && node.name === 'join') {
      const [separator, ...rest] = args();
      const values = rest.flat();
      return values.includes(UNKNOWN) ? UNKNOWN : values.map(javaString).join(separator);
    }
    if (target === 'String' && node.name === 'format') {
      const [format, ...rest] = args();
      if (format === UNKNOWN || rest.includes(UNKNOWN)) return UNKNOWN;
      let index = 0;
      return format.replace(/%[sd%n]/g, (spec) => (spec === '%%' ? '%' : spec === '%n' ? '\n' : javaString(rest[index++])));
    }
    if (node.name === 'serverSynonym' && target === 'ServerTopicConfigSynonyms') {
      const [topicName] = args();
      return SYNONYMS.get(topicName)?.[0] ?? UNKNOWN;
    }
    if (node.name === 'version' && /(^|\.)IBP_/.test(target)) {
      return target.split('.').pop().replace(/^IBP_/, '').replace('_', '.').replace(/_IV/, '-IV').replace(/_/g, '.');
    }
    if (node.name === 'toString' || node.name === 'name') return node.target ? evaluate(node.target, className) : UNKNOWN;
    if (node.name === 'getName' && node.target?.kind === 'member' && node.target.name === 'class') {
      return UNKNOWN;
    }
    return UNKNOWN;
  }
  return { evaluate, constant };
}

/** ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS: topic config -> broker synonyms, highest precedence first. */
const SYNONYMS = new Map();

function readSynonyms(classes, evaluator) {
  const entry = classes.get('ServerTopicConfigSynonyms');
  const text = readFileSync(entry.get('LOG_PREFIX').file, 'utf8');
  const body = text.slice(text.indexOf('ALL_TOPIC_CONFIG_SYNONYMS'), text.indexOf('Map<String, String> TOPIC_CONFIG_SYNONYMS'));
  const pattern = /(sameName|sameNameWithLogPrefix|sameNameWithLogCleanerPrefix|single|singleWithLogPrefix|singleWithLogCleanerPrefix|listWithLogPrefix)\(TopicConfig\.(\w+)((?:,\s*(?:"[^"]*"|new ConfigSynonym\("[^"]*"(?:,\s*[\w.]+)?\)))*)\)/g;
  for (const match of body.matchAll(pattern)) {
    const [, helper, constantName, rest] = match;
    const topicName = evaluator.constant('TopicConfig', constantName);
    const given = [...rest.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
    const prefix = helper.includes('LogCleaner') ? 'log.cleaner.' : helper.includes('Log') ? 'log.' : '';
    const names = helper.startsWith('sameName') ? [prefix + topicName] : given.map((name) => prefix + name);
    SYNONYMS.set(topicName, names);
  }
}

// ---------------------------------------------------------------- define(...) calls

const IMPORTANCE = new Set(['HIGH', 'MEDIUM', 'LOW']);
const isImportance = (node) => (node.kind === 'name' && IMPORTANCE.has(node.name)) ||
  (node.kind === 'member' && IMPORTANCE.has(node.name) && /Importance$/.test(show(node.target)));
const TYPES = new Set(['BOOLEAN', 'STRING', 'INT', 'SHORT', 'LONG', 'DOUBLE', 'LIST', 'CLASS', 'PASSWORD']);

/** `.define(...)` calls of a class file, each with its arguments' ASTs and its token index. */
function defineCalls(tokens) {
  const calls = [];
  for (let i = 0; i < tokens.length - 2; i++) {
    if (tokens[i].value !== '.' && !(tokens[i].kind === 'id' && tokens[i + 1]?.value === 'define' && i > 0)) continue;
    if (tokens[i + 1]?.value !== 'define' || tokens[i + 2]?.value !== '(') continue;
    const parser = { tokens, at: i + 2 };
    calls.push({ at: i, args: argumentsOf(parser) });
  }
  return calls;
}

/** Index of the `;` ending the statement that starts at `start`. */
function chainEnd(tokens, start) {
  let depth = 0;
  for (let i = start; i < tokens.length; i++) {
    const value = tokens[i].value;
    if (value === '(' || value === '{') depth++;
    if (value === ')' || value === '}') depth--;
    if (value === ';' && depth === 0) return i;
  }
  return tokens.length;
}

/**
 * The `new ConfigDef()...define(...);` chains that AbstractKafkaConfig merges: assigned to a
 * `*CONFIG_DEF` field, or returned by RemoteLogManagerConfig.configDef(); [start, end) indexes.
 */
function brokerChains(tokens) {
  const chains = [];
  for (let i = 2; i < tokens.length - 3; i++) {
    if (tokens[i].value !== 'new' || tokens[i + 1].value !== 'ConfigDef' || tokens[i + 2].value !== '(' || tokens[i + 3].value !== ')') continue;
    const assigned = tokens[i - 1].value === '=' && /CONFIG_DEF$/.test(tokens[i - 2].value);
    const returned = tokens[i - 1].value === 'return' && tokens.slice(Math.max(0, i - 8), i).some((t) => t.value === 'configDef');
    if (assigned || returned) chains.push([i, chainEnd(tokens, i)]);
  }
  return chains;
}

function validatorOf(node, evaluator, className) {
  if (!node) return {};
  const text = show(node);
  if (text in KNOWN_CALLS) return KNOWN_CALLS[text].validator;
  if (node.kind !== 'call') return {};
  const name = node.name;
  const value = (arg) => evaluator.evaluate(arg, className);
  if (name === 'atLeast') return { min: value(node.args[0]) };
  if (name === 'between') return { min: value(node.args[0]), max: value(node.args[1]) };
  if (name === 'in' || name === 'inWithEmptyCheck') {
    const values = node.args.map(value).flat();
    if (values.includes(UNKNOWN)) return {};
    return { oneOf: values.map(javaString), list: /ValidList/.test(text) };
  }
  if (name === 'nonEmptyString' || text.includes('NonEmptyString')) return { nonEmpty: true };
  return {};
}

function firstSentence(doc) {
  if (typeof doc !== 'string') return null;
  const plain = doc.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim();
  const end = plain.search(/\.(\s|$)/);
  const sentence = end < 0 ? plain : plain.slice(0, end + 1);
  return sentence.length > 240 ? sentence.slice(0, 237) + '...' : sentence;
}

function readDefine(call, evaluator, className) {
  const { args } = call;
  const value = (arg) => evaluator.evaluate(arg, className);
  const name = value(args[0]);
  const typeNode = args[1];
  const type = typeNode.kind === 'name' ? typeNode.name : typeNode.name;
  if (typeof name !== 'string' || !TYPES.has(type)) throw new Error(`cannot read define(${args.map(show).join(', ')}) in ${className}`);
  let defaultNode = null;
  let validatorNode = null;
  let docNode;
  if (isImportance(args[2])) docNode = args[3];
  else if (isImportance(args[3])) { defaultNode = args[2]; docNode = args[4]; }
  else { defaultNode = args[2]; validatorNode = args[3]; docNode = args[5]; }
  let defaultValue = defaultNode === null ? UNKNOWN : value(defaultNode);
  if (defaultValue === UNKNOWN && defaultNode !== null) {
    if (type === 'CLASS' && defaultNode.kind === 'call' && defaultNode.name === 'getName') defaultValue = classDefault(defaultNode);
    else if (type === 'CLASS' && defaultNode.kind === 'member' && defaultNode.name === 'class') defaultValue = classDefault(defaultNode);
    else if (`${className}.${name}` in KNOWN_DEFAULTS) defaultValue = KNOWN_DEFAULTS[`${className}.${name}`];
    else { FAILURES.push(`cannot evaluate the default of ${name} (${className}): ${show(defaultNode)}`); defaultValue = null; }
  }
  const validator = validatorOf(validatorNode, evaluator, className) ?? {};
  return {
    name,
    type,
    required: defaultNode === null,
    defaultValue: defaultNode === null || defaultValue === null ? null : type === 'LIST' && Array.isArray(defaultValue) ? defaultValue.map(javaString).join(',') : javaString(defaultValue),
    min: validator.min === undefined || validator.min === UNKNOWN ? undefined : validator.min,
    max: validator.max === undefined || validator.max === UNKNOWN ? undefined : validator.max,
    oneOf: validator.oneOf,
    nonEmpty: validator.nonEmpty,
    gzipLevel: validator.gzip,
    doc: firstSentence(docNode ? value(docNode) : null),
  };
}

/** `Foo.class.getName()` / `Foo.class`: Kafka prints the class's fully-qualified name; we keep the simple one's package-less form. */
function classDefault(node) {
  const target = node.kind === 'call' ? node.target : node;
  return show(target.target);
}

// ---------------------------------------------------------------- output

/** A bound as a JSON number (Java longs beyond 2^53 become +-Number.MAX_SAFE_INTEGER). */
function number(value) {
  if (typeof value !== 'bigint') return value;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : (value > 0n ? Number.MAX_SAFE_INTEGER : -Number.MAX_SAFE_INTEGER);
}

/** One config as a line of the JSON table: Kafka's facts, the fields in KafkaConfigInfo's order. */
function entryLine(config, synonyms) {
  const entry = { name: config.name, type: config.type, defaultValue: config.defaultValue ?? null };
  if (config.min !== undefined) entry.min = number(config.min);
  if (config.max !== undefined) entry.max = number(config.max);
  if (config.oneOf) entry.oneOf = config.oneOf;
  if (config.nonEmpty) entry.nonEmpty = true;
  if (config.gzipLevel) entry.alsoAccepts = [-1];
  if (synonyms) entry.brokerSynonyms = synonyms;
  entry.doc = config.doc ?? '';
  return `    ${JSON.stringify(entry)}`;
}

function main() {
  const [path, ref = 'HEAD'] = process.argv.slice(2);
  if (!path) {
    console.error('usage: node scripts/generate-kafka-configs.mjs <kafka source tree or git dir> [ref]');
    process.exit(2);
  }
  const { root, cleanup } = sourceTree(path, ref);
  try {
    const files = MODULES.flatMap((module) => javaFiles(join(root, module)));
    const classes = collectConstants(files);
    const packages = new Map(files.map((file) => [file.split('/').pop().replace(/\.java$/, ''), file.split('/src/main/java/')[1].replace(/\/[^/]+$/, '').replace(/\//g, '.')]));
    const evaluator = makeEvaluator(classes);
    readSynonyms(classes, evaluator);
    const qualify = (config) => (config.type === 'CLASS' && config.defaultValue && packages.has(config.defaultValue)
      ? { ...config, defaultValue: `${packages.get(config.defaultValue)}.${config.defaultValue}` } : config);

    const broker = new Map();
    const topic = new Map();
    for (const className of BROKER_CONFIG_CLASSES) {
      const constants = classes.get(className);
      if (!constants) throw new Error(`class ${className} not found`);
      const tokens = constants.defineTokens;
      const calls = defineCalls(tokens);
      for (const [start, end] of brokerChains(tokens)) {
        for (const call of calls.filter((c) => c.at > start && c.at < end)) {
          const config = qualify(readDefine(call, evaluator, className));
          if (!broker.has(config.name)) broker.set(config.name, config);
        }
      }
      if (className !== 'LogConfig') continue;
      const topicStart = tokens.findIndex((t, i) => t.value === 'CONFIG' && tokens[i + 1]?.value === '.' && tokens[i + 2]?.value === 'define');
      for (const call of calls.filter((c) => c.at > topicStart && c.at < chainEnd(tokens, topicStart))) {
        const config = qualify(readDefine(call, evaluator, className));
        if (!topic.has(config.name)) topic.set(config.name, config);
      }
    }
    if (FAILURES.length > 0) throw new Error(`cannot read:\n${FAILURES.join('\n')}`);
    const header = [
      '/**',
      ' * GENERATED by scripts/generate-kafka-configs.mjs from Apache Kafka\'s config definitions',
      ` * (${ref === 'HEAD' ? 'the fetched snapshot' : ref}: AbstractKafkaConfig.CONFIG_DEF for brokers, LogConfig for topics). Do not edit.`,
      ' * Facts only: names, ConfigDef types, defaults as Kafka prints them, validator bounds and values,',
      ' * the first sentence of Kafka\'s documentation, the broker synonyms of topic configs',
      ' * (ServerTopicConfigSynonyms). What Tributary does with each is in host/config/kafka-config-catalog.ts.',
      ' *',
      ` * The table itself is kafka-configs.json beside this file (${broker.size} broker configs, then ${topic.size} topic`,
      ' * configs, each sorted by name): data read only when a Kafka-only config is met (kafka-config-catalog.ts),',
      ' * so a start-up that sets none does not pay for parsing it. This file gives its types.',
      ' */',
    ];
    const types = [
      ...header,
      '',
      'export type KafkaConfigType = \'BOOLEAN\' | \'STRING\' | \'INT\' | \'SHORT\' | \'LONG\' | \'DOUBLE\' | \'LIST\' | \'CLASS\' | \'PASSWORD\';',
      '',
      '/** One config as Kafka defines it. `defaultValue` null: no default (or a null one). */',
      'export interface KafkaConfigInfo {',
      '  readonly name: string;',
      '  readonly type: KafkaConfigType;',
      '  readonly defaultValue: string | null;',
      '  readonly min?: number;',
      '  readonly max?: number;',
      '  readonly oneOf?: readonly string[];',
      '  readonly nonEmpty?: boolean;',
      '  /** Values accepted outside [min, max] (gzip\'s -1, Deflater.DEFAULT_COMPRESSION). */',
      '  readonly alsoAccepts?: readonly number[];',
      '  /** Topic configs: the broker configs giving the default, highest precedence first. */',
      '  readonly brokerSynonyms?: readonly string[];',
      '  readonly doc: string;',
      '}',
      '',
      '/** kafka-configs.json: every broker config and every topic config of Kafka. */',
      'export interface KafkaConfigTables {',
      '  readonly broker: readonly KafkaConfigInfo[];',
      '  readonly topic: readonly KafkaConfigInfo[];',
      '}',
      '',
      '/**',
      ' * The JSON file as TypeScript reads it. Naming it here also makes `tsc` copy the file into',
      ' * dist/ beside the compiled modules (resolveJsonModule), where kafka-config-catalog.ts reads it.',
      ' */',
      'export type KafkaConfigsJson = typeof import(\'./kafka-configs.json\', { with: { type: \'json\' } });',
      '',
    ];
    const table = [
      '{',
      '  "broker": [',
      [...broker.values()].sort((a, b) => a.name.localeCompare(b.name)).map((config) => entryLine(config)).join(',\n'),
      '  ],',
      '  "topic": [',
      [...topic.values()].sort((a, b) => a.name.localeCompare(b.name)).map((config) => entryLine(config, SYNONYMS.get(config.name) ?? [])).join(',\n'),
      '  ]',
      '}',
      '',
    ];
    const out = new URL('../host/config/generated/kafka-configs.json', import.meta.url);
    writeFileSync(new URL('../host/config/generated/kafka-configs.ts', import.meta.url), types.join('\n'));
    writeFileSync(out, table.join('\n'));
    console.log(`wrote ${broker.size} broker and ${topic.size} topic configs to ${out.pathname}`);
  } finally {
    cleanup();
  }
}

main();
