/**
 * The config reference as Markdown tables (name, default, accepted values, description), generated
 * from the definitions so that README.md cannot drift from the code.
 */
import { BROKER_CONFIG_DEFS } from './broker-config.js';
import { ConfigDef, acceptedPhrase } from './config-def.js';
import { TOPIC_CONFIG_DEFS } from './topic-config.js';

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

/** Broker configs (server.properties / --override) as a Markdown table. */
export function brokerConfigReferenceMarkdown(): string {
  return table(BROKER_CONFIG_DEFS);
}

/** Topic configs (CreateTopics / AlterConfigs) as a Markdown table with their broker synonyms. */
export function topicConfigReferenceMarkdown(): string {
  const synonyms = new Map(TOPIC_CONFIG_DEFS.map((def) => [def.name, def.brokerSynonyms]));
  return table(TOPIC_CONFIG_DEFS, (def) => (synonyms.get(def.name) ?? []).map((name) => `\`${name}\``).join(', '));
}
