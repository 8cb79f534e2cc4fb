/**
 * The config reference as Markdown tables (name, default, accepted values, description), generated
 * from the definitions so that README.md cannot drift from the code.
 */
import { brokerConfigDefs, TRIBUTARY_BROKER_CONFIG_DEFS } from './broker-config.js';
import { ConfigDef, acceptedPhrase } from './config-def.js';
import { topicConfigDefs } from './topic-config.js';

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function table(defs: readonly ConfigDef[], extra?: (def: ConfigDef) => string): string {
  const header = extra
    ? '| name | default | accepted | broker default from | description |\n|---|---|---|---|---|\n'
    : '| name | default | accepted | description |\n|---|---|---|---|\n';
  const rows = defs.map((def) => {
    const cells = [
      `\`${def.name}\``,
      def.defaultValue === null ? '(none)' : def.defaultValue === '' ? '(empty)' : `\`${def.defaultValue}\``,
      acceptedPhrase(def),
      ...(extra ? [extra(def)] : []),
      def.doc,
    ];
    return `| ${cells.map(escapeCell).join(' | ')} |`;
  });
  return header + rows.join('\n') + '\n';
}

/** Broker configs (server.properties / --override) Tributary defines, as a Markdown table. */
export function brokerConfigReferenceMarkdown(): string {
  return table(TRIBUTARY_BROKER_CONFIG_DEFS);
}

/**
 * Kafka's other broker configs, accepted without effect: one Markdown bullet per reason with the
 * names it covers (from the generated table of Kafka's configs).
 */
export function kafkaOnlyBrokerConfigsMarkdown(): string {
  const own = new Set(TRIBUTARY_BROKER_CONFIG_DEFS.map((def) => def.name));
  const byReason = new Map<string, string[]>();
  for (const def of brokerConfigDefs()) {
    if (own.has(def.name) || def.noEffect === undefined) continue;
    byReason.set(def.noEffect, [...(byReason.get(def.noEffect) ?? []), def.name]);
  }
  return [...byReason].map(([reason, names]) => `- ${reason}: ${names.map((name) => `\`${name}\``).join(', ')}\n`).join('');
}

/** Topic configs (CreateTopics / AlterConfigs) as a Markdown table with their broker synonyms. */
export function topicConfigReferenceMarkdown(): string {
  const synonyms = new Map(topicConfigDefs().map((def) => [def.name, def.brokerSynonyms]));
  return table(topicConfigDefs(), (def) => (synonyms.get(def.name) ?? []).map((name) => `\`${name}\``).join(', '));
}
