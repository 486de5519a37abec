import type { TemplateSource } from './index.js'

/** Budget ≥ 1,000 a month and buying this year: worth a sales call. */
const QUALIFIED = {
  and: [{ '>=': [{ var: 'budget' }, 1000] }, { in: [{ var: 'timeline' }, ['this month', 'three months', 'this year']] }],
}

/**
 * Qualifies an inbound lead on budget and timeline with JSON Logic branching: qualified leads
 * leave an email for an account executive, the rest are offered material. Runs with no LLM.
 */
export const leadQualification: TemplateSource = {
  id: 'lead-qualification',
  name: 'Lead qualification',
  description:
    'Asks a new lead for their name, company, monthly budget, buying timeline and whether they decide on purchases, then routes qualified leads to an account executive and offers the rest a pricing guide. Runs without an LLM.',
  language: 'en-US',
  tags: ['sales', 'inbound', 'qualification', 'no-llm'],
  definition: {
    variables: [
      { name: 'product_name', type: 'string', default: 'Acme Analytics', description: 'The product the lead asked about.' },
      { name: 'contact_name', type: 'string' },
      { name: 'company_name', type: 'string' },
      { name: 'budget', type: 'number', description: 'Monthly budget in US dollars.' },
      { name: 'timeline', type: 'string', description: 'When they want to start: this month, three months, this year or researching.' },
      { name: 'decision_maker', type: 'boolean', default: false, description: 'Whether they make the purchasing decision.' },
      { name: 'wants_info', type: 'boolean', default: false, description: 'Whether a lead that is not ready yet wants the pricing guide.' },
      { name: 'email', type: 'email' },
    ],
    nodes: [
      {
        id: 'start',
        type: 'start',
        position: { x: 0, y: 0 },
        data: {
          first_message: {
            mode: 'static',
            text: "Hi, thanks for your interest in {{product_name}}! I'd like to ask a few quick questions so we can connect you with the right person. It takes about two minutes.",
          },
        },
      },
      {
        id: 'ask_name',
        type: 'collect',
        position: { x: 0, y: 120 },
        data: {
          variable: 'contact_name',
          value_type: 'text',
          prompt: "To start, what's your name?",
          reprompt: 'Sorry, could you tell me your name again?',
          max_attempts: 2,
        },
      },
      {
        id: 'ask_company',
        type: 'collect',
        position: { x: 0, y: 240 },
        data: { variable: 'company_name', value_type: 'text', prompt: 'Nice to meet you, {{contact_name}}. Which company are you with?', max_attempts: 2 },
      },
      {
        id: 'ask_budget',
        type: 'collect',
        position: { x: 0, y: 360 },
        data: {
          variable: 'budget',
          value_type: 'number',
          prompt: 'Roughly what monthly budget do you have in mind for a solution like this, in US dollars?',
          reprompt: 'A rough figure is fine. For example, five hundred, or two thousand dollars a month.',
          max_attempts: 2,
        },
      },
      {
        id: 'ask_timeline',
        type: 'collect',
        position: { x: 0, y: 480 },
        data: {
          variable: 'timeline',
          value_type: 'choice',
          choices: ['this month', 'three months', 'this year', 'researching'],
          prompt: 'Are you looking to get started this month, in the next three months, later this year, or are you just researching for now?',
          reprompt: 'Would you say this month, within three months, later this year, or just researching?',
          max_attempts: 2,
        },
      },
      {
        id: 'ask_decision',
        type: 'collect',
        position: { x: 0, y: 600 },
        data: {
          variable: 'decision_maker',
          value_type: 'yes_no',
          prompt: 'And are you the person who makes the final purchasing decision?',
          reprompt: 'Do you make the final purchasing decision? A simple yes or no is fine.',
          max_attempts: 2,
        },
      },
      { id: 'qualify', type: 'condition', position: { x: 0, y: 720 }, data: { description: 'Budget of at least $1,000 a month and buying this year' } },
      {
        id: 'ask_email',
        type: 'collect',
        position: { x: -320, y: 840 },
        data: {
          variable: 'email',
          value_type: 'email',
          prompt: "Great news: it sounds like {{product_name}} could be a good fit. What's the best email address for our account executive to reach you?",
          reprompt: 'Could you spell out your email address for me? For example, jane dot doe at example dot com.',
          max_attempts: 3,
        },
      },
      {
        id: 'next_steps',
        type: 'say',
        position: { x: -320, y: 960 },
        data: {
          text: 'Thanks, {{contact_name}}. An account executive will email you at {{email}} within one business day to set up a demo.{{^decision_maker}} Feel free to invite whoever signs off on purchases to join that call.{{/decision_maker}}',
        },
      },
      {
        id: 'end_qualified',
        type: 'end',
        position: { x: -320, y: 1080 },
        data: { message: 'Thanks again for your time, and have a great day!', disposition: 'qualified' },
      },
      {
        id: 'ask_nurture',
        type: 'collect',
        position: { x: 320, y: 840 },
        data: {
          variable: 'wants_info',
          value_type: 'yes_no',
          prompt:
            'Thanks, {{contact_name}}. It sounds like it may be a little early for a full demo. Would you like us to email you our pricing guide and a few customer stories in the meantime?',
          reprompt: 'Shall I send you the pricing guide? Yes or no?',
          max_attempts: 2,
        },
      },
      { id: 'check_nurture', type: 'condition', position: { x: 320, y: 960 }, data: { description: 'Does the lead want the pricing guide?' } },
      {
        id: 'ask_nurture_email',
        type: 'collect',
        position: { x: 320, y: 1080 },
        data: {
          variable: 'email',
          value_type: 'email',
          prompt: 'Great. What email address should we send it to?',
          reprompt: 'Could you spell out your email address for me?',
          max_attempts: 3,
        },
      },
      {
        id: 'end_nurture_sent',
        type: 'end',
        position: { x: 320, y: 1200 },
        data: { message: "Perfect, we'll send it to {{email}} shortly. Thanks for your time, and have a great day!", disposition: 'not_qualified' },
      },
      {
        id: 'end_not_qualified',
        type: 'end',
        position: { x: 640, y: 1080 },
        data: { message: 'No problem at all. If anything changes, you can reach us any time. Thanks for your time!', disposition: 'not_qualified' },
      },
      {
        id: 'end_incomplete',
        type: 'end',
        position: { x: -320, y: 240 },
        data: { message: "It sounds like this isn't a good moment. Feel free to call us back whenever it suits you. Goodbye!", disposition: 'incomplete' },
      },
    ],
    edges: [
      { id: 'e_start', source: 'start', target: 'ask_name' },
      { id: 'e_name', source: 'ask_name', target: 'ask_company', condition: { kind: 'outcome', outcome: 'collected' } },
      { id: 'e_name_failed', source: 'ask_name', target: 'end_incomplete', condition: { kind: 'outcome', outcome: 'max_attempts' } },
      // Unanswered later questions are skipped: the lead is then judged on what they did say.
      { id: 'e_company', source: 'ask_company', target: 'ask_budget' },
      { id: 'e_budget', source: 'ask_budget', target: 'ask_timeline' },
      { id: 'e_timeline', source: 'ask_timeline', target: 'ask_decision' },
      { id: 'e_decision', source: 'ask_decision', target: 'qualify' },
      { id: 'e_qualified', source: 'qualify', target: 'ask_email', label: 'Qualified', condition: { kind: 'expression', expression: QUALIFIED } },
      { id: 'e_nurture', source: 'qualify', target: 'ask_nurture', label: 'Not yet' },
      { id: 'e_email', source: 'ask_email', target: 'next_steps', condition: { kind: 'outcome', outcome: 'collected' } },
      { id: 'e_email_failed', source: 'ask_email', target: 'end_qualified', condition: { kind: 'outcome', outcome: 'max_attempts' } },
      { id: 'e_next_steps', source: 'next_steps', target: 'end_qualified' },
      { id: 'e_nurture_answer', source: 'ask_nurture', target: 'check_nurture' },
      {
        id: 'e_wants_info',
        source: 'check_nurture',
        target: 'ask_nurture_email',
        label: 'Wants the guide',
        condition: { kind: 'expression', expression: { '==': [{ var: 'wants_info' }, true] } },
      },
      { id: 'e_no_info', source: 'check_nurture', target: 'end_not_qualified' },
      { id: 'e_nurture_email', source: 'ask_nurture_email', target: 'end_nurture_sent', condition: { kind: 'outcome', outcome: 'collected' } },
      { id: 'e_nurture_email_failed', source: 'ask_nurture_email', target: 'end_not_qualified', condition: { kind: 'outcome', outcome: 'max_attempts' } },
    ],
  },
  config: {
    language: 'en-US',
    first_speaker: 'agent',
    tts: { provider: 'espeak', voice: 'en-us' },
    max_call_duration_s: 600,
    silence_timeout_s: 15,
  },
}
