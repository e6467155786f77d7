/** Workflows: `*.workflow.yml` read and checked (loadWorkflows), and whether a record trigger fires (matchesTrigger). */
export { loadWorkflows, type LoadWorkflowsOptions } from './load';
export { matchesTrigger } from './match';
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
