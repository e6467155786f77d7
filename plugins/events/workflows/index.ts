/**
 * Workflows: `*.workflow.yml` read and checked (loadWorkflows), whether a record trigger fires
 * (matchesTrigger), and the deliveries an event makes (Triggers).
 */
export { loadWorkflows, type LoadWorkflowsOptions } from './load';
export { matchesTrigger } from './match';
export { Triggers } from './triggers';
export {
  DEFAULT_WORKFLOW_SETTINGS,
  checkCron,
  parseWorkflow,
  substituteEnv,
  urlProblem,
  type ParseContext,
  type WorkflowSettings,
} from './parse';
export { WorkflowProblems } from './problems';
