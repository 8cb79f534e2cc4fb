/**
 * The controller's automatic preferred leader balancing configs (Kafka's names and defaults):
 * every `leader.imbalance.check.interval.seconds` the active controller moves leadership back to
 * preferred replicas for brokers over `leader.imbalance.per.broker.percentage`, while
 * `auto.leader.rebalance.enable` is true (host/server/leader-balancer.ts,
 * host/controller/leader-election-control.ts). Kept apart from broker-config.ts, which spreads
 * these definitions into its list and these values into the BrokerConfig.
 */
import type { ConfigDef, ConfigValue } from './config-def.js';

export const LEADER_BALANCE_CONFIG_DEFS: readonly ConfigDef[] = [
  { name: 'auto.leader.rebalance.enable', type: 'BOOLEAN', defaultValue: 'true',
    doc: 'Periodically move partition leadership back to the preferred replicas (the first of each replica list).' },
  { name: 'leader.imbalance.check.interval.seconds', type: 'LONG', defaultValue: '300', min: 1,
    doc: 'How often the active controller checks the leader balance, in seconds.' },
  { name: 'leader.imbalance.per.broker.percentage', type: 'INT', defaultValue: '10', min: 0, max: 100,
    doc: 'Leaders of a broker\'s preferred partitions allowed elsewhere before a rebalance, in percent.' },
];

/** The BrokerConfig fields these configs set. */
export interface LeaderBalanceConfig {
  readonly autoLeaderRebalanceEnable: boolean;
  readonly leaderImbalanceCheckIntervalSeconds: number;
  readonly leaderImbalancePerBrokerPercentage: number;
}

/** The fields, from the parsed values. */
export function leaderBalanceConfig(get: <T extends ConfigValue>(name: string) => T): LeaderBalanceConfig {
  return {
    autoLeaderRebalanceEnable: get('auto.leader.rebalance.enable'),
    leaderImbalanceCheckIntervalSeconds: get('leader.imbalance.check.interval.seconds'),
    leaderImbalancePerBrokerPercentage: get('leader.imbalance.per.broker.percentage'),
  };
}
