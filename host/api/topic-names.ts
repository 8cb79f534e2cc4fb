/**
 * Topic name rules shared by the Metadata, Produce, CreateTopics and DeleteTopics handlers
 * (auto-creation is in auto-topic-creation.ts).
 */
export { INTERNAL_TOPIC_NAMES, MAX_TOPIC_NAME_LENGTH, topicNameProblem } from '../controller/topic-name.js';
