import type { TemplateSource } from './index.js'

/**
 * Books an appointment through a calendar integration: collects name, date, time slot and
 * phone, reads them back, then calls the action. Fully deterministic (runs with no LLM).
 */
export const appointmentBooking: TemplateSource = {
  id: 'appointment-booking',
  name: 'Appointment booking',
  description:
    'Collects the caller’s name, a date, a time slot and a phone number, confirms them, and books the appointment in Cal.com. If booking fails, the caller is put through to your front desk. Runs without an LLM.',
  language: 'en-US',
  tags: ['inbound', 'booking', 'integration', 'no-llm'],
  definition: {
    variables: [
      { name: 'business_name', type: 'string', default: 'Bright Smile Dental', description: 'Your business as callers know it.' },
      { name: 'caller_name', type: 'string', description: 'Who the appointment is for.' },
      { name: 'appointment_date', type: 'date', description: 'The day, as YYYY-MM-DD.' },
      { name: 'appointment_time', type: 'string', description: 'One of the offered time slots.' },
      { name: 'phone_number', type: 'phone', description: 'Where to reach the caller about the appointment.' },
      { name: 'confirmed', type: 'boolean', description: 'Whether the caller confirmed the details read back.' },
      { name: 'booking_id', type: 'string', description: 'The booking reference returned by the calendar.' },
    ],
    nodes: [
      {
        id: 'start',
        type: 'start',
        position: { x: 0, y: 0 },
        data: {
          first_message: { mode: 'static', text: 'Hi, thanks for calling {{business_name}}! I can book an appointment for you. It only takes a minute.' },
        },
      },
      {
        id: 'ask_name',
        type: 'collect',
        position: { x: 0, y: 120 },
        data: {
          variable: 'caller_name',
          value_type: 'text',
          prompt: 'First, may I have your full name?',
          reprompt: "Sorry, I didn't catch that. Could you tell me your first and last name?",
          max_attempts: 3,
        },
      },
      {
        id: 'ask_date',
        type: 'collect',
        position: { x: 0, y: 240 },
        data: {
          variable: 'appointment_date',
          value_type: 'date',
          prompt: 'Thanks, {{caller_name}}. What day would you like to come in?',
          reprompt: 'Which date works for you? You can say tomorrow, or a date like March 14th.',
          max_attempts: 3,
        },
      },
      {
        id: 'ask_time',
        type: 'collect',
        position: { x: 0, y: 360 },
        data: {
          variable: 'appointment_time',
          value_type: 'choice',
          choices: ['9 AM', '11 AM', '2 PM', '4 PM'],
          prompt: 'We have openings at 9 AM, 11 AM, 2 PM and 4 PM. Which time suits you best?',
          reprompt: 'Please pick one of these times: 9 AM, 11 AM, 2 PM or 4 PM.',
          max_attempts: 3,
        },
      },
      {
        id: 'ask_phone',
        type: 'collect',
        position: { x: 0, y: 480 },
        data: {
          variable: 'phone_number',
          value_type: 'phone',
          prompt: "What's the best phone number to reach you if anything changes?",
          reprompt: 'Could you say that number again, digit by digit?',
          max_attempts: 3,
        },
      },
      {
        id: 'confirm',
        type: 'collect',
        position: { x: 0, y: 600 },
        data: {
          variable: 'confirmed',
          value_type: 'yes_no',
          prompt:
            "Let me read that back: an appointment for {{caller_name}} on {{appointment_date}} at {{appointment_time}}, and we'll reach you at {{phone_number}}. Shall I go ahead and book it?",
          reprompt: 'Should I book it? Please say yes or no.',
          max_attempts: 2,
        },
      },
      { id: 'check_confirmed', type: 'condition', position: { x: 0, y: 720 }, data: { description: 'Did the caller confirm the details?' } },
      { id: 'change_details', type: 'say', position: { x: 320, y: 720 }, data: { text: "No problem, let's find a time that works better." } },
      {
        id: 'book',
        type: 'tool',
        name: 'Create the booking',
        position: { x: 0, y: 840 },
        data: {
          action: { integration: 'calcom', action: 'create_booking' },
          input: {
            name: '{{caller_name}}',
            phone: '{{phone_number}}',
            date: '{{appointment_date}}',
            time: '{{appointment_time}}',
            notes: 'Booked by phone through the {{business_name}} voice agent.',
          },
          output: { booking_id: 'uid' },
          say_while_running: 'One moment while I book that for you.',
        },
      },
      {
        id: 'booked',
        type: 'say',
        position: { x: 0, y: 960 },
        data: {
          text: "You're all set, {{caller_name}}! Your appointment is on {{appointment_date}} at {{appointment_time}}. Your confirmation number is {{booking_id}}.",
        },
      },
      {
        id: 'end_booked',
        type: 'end',
        position: { x: 0, y: 1080 },
        data: { message: "We'll send you a reminder the day before. Thanks for calling {{business_name}}, and have a great day!", disposition: 'booked' },
      },
      {
        id: 'booking_failed',
        type: 'say',
        position: { x: 320, y: 960 },
        data: { text: "I'm sorry, I couldn't complete the booking in our system just now." },
      },
      {
        id: 'not_understood',
        type: 'say',
        position: { x: -320, y: 600 },
        data: { text: "I'm sorry, I'm having trouble understanding." },
      },
      {
        id: 'to_front_desk',
        type: 'transfer',
        name: 'Front desk',
        position: { x: 320, y: 1080 },
        data: {
          target: '+15555550100',
          mode: 'cold',
          message: "Let me put you through to our front desk. They'll finish the booking with you. One moment, please.",
        },
      },
      {
        id: 'end_failed',
        type: 'end',
        position: { x: 320, y: 1200 },
        data: {
          message: "Our front desk isn't available right now. Please call us back during office hours. We're sorry for the inconvenience. Goodbye!",
          disposition: 'booking_failed',
        },
      },
    ],
    edges: [
      { id: 'e_start', source: 'start', target: 'ask_name' },
      { id: 'e_name', source: 'ask_name', target: 'ask_date', condition: { kind: 'outcome', outcome: 'collected' } },
      { id: 'e_name_failed', source: 'ask_name', target: 'not_understood', condition: { kind: 'outcome', outcome: 'max_attempts' } },
      { id: 'e_date', source: 'ask_date', target: 'ask_time', condition: { kind: 'outcome', outcome: 'collected' } },
      { id: 'e_date_failed', source: 'ask_date', target: 'not_understood', condition: { kind: 'outcome', outcome: 'max_attempts' } },
      { id: 'e_time', source: 'ask_time', target: 'ask_phone', condition: { kind: 'outcome', outcome: 'collected' } },
      { id: 'e_time_failed', source: 'ask_time', target: 'not_understood', condition: { kind: 'outcome', outcome: 'max_attempts' } },
      { id: 'e_phone', source: 'ask_phone', target: 'confirm', condition: { kind: 'outcome', outcome: 'collected' } },
      { id: 'e_phone_failed', source: 'ask_phone', target: 'not_understood', condition: { kind: 'outcome', outcome: 'max_attempts' } },
      { id: 'e_confirm', source: 'confirm', target: 'check_confirmed', condition: { kind: 'outcome', outcome: 'collected' } },
      { id: 'e_confirm_failed', source: 'confirm', target: 'not_understood', condition: { kind: 'outcome', outcome: 'max_attempts' } },
      {
        id: 'e_confirmed',
        source: 'check_confirmed',
        target: 'book',
        label: 'Confirmed',
        condition: { kind: 'expression', expression: { '==': [{ var: 'confirmed' }, true] } },
      },
      { id: 'e_not_confirmed', source: 'check_confirmed', target: 'change_details', label: 'Change something' },
      { id: 'e_retry', source: 'change_details', target: 'ask_date' },
      { id: 'e_booked', source: 'book', target: 'booked', condition: { kind: 'outcome', outcome: 'success' } },
      { id: 'e_book_failed', source: 'book', target: 'booking_failed', condition: { kind: 'outcome', outcome: 'failure' } },
      { id: 'e_goodbye', source: 'booked', target: 'end_booked' },
      { id: 'e_apologised', source: 'booking_failed', target: 'to_front_desk' },
      { id: 'e_not_understood', source: 'not_understood', target: 'to_front_desk' },
      { id: 'e_no_answer', source: 'to_front_desk', target: 'end_failed', condition: { kind: 'outcome', outcome: 'failure' } },
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
