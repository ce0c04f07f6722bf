package logmonitor

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/winkube/winkube/pkg/emu/etw"
)

// startETW is EtwMonitor: one real-time session enabling each provider
// named by GUID, or by a name registered when it starts
// (FilterValidProviders: a name nothing has registered is dropped
// without a word), at the provider's level and keywords.
func (m *monitor) startETW(cfg *config) {
	tracing := m.p.Sys.ETW()
	var enables []etw.Enable
	for _, p := range cfg.providers {
		guid := p.guid
		if guid == "" {
			reg, ok := tracing.Lookup(p.name)
			if !ok {
				continue
			}
			guid = reg.GUID
		}
		enables = append(enables, etw.Enable{GUID: guid, Level: p.level, Keywords: p.keywords})
	}
	m.etw = tracing.Start(enables, func(e etw.Event) { m.w.line(m.etwLine(e, cfg.etwCustom)) })
}

// etwLevels is c_LevelToString, by level.
var etwLevels = []string{"None", "Critical", "Error", "Warning", "Information", "Verbose"}

var decodingNames = []string{"DecodingSourceXMLFile", "DecodingSourceWbem", "DecodingSourceWPP", "DecodingSourceTlg"}

// jsonNumber is Utility::isJsonNumber: data printed without quotes.
var jsonNumber = regexp.MustCompile(`(^\-?\d+$)|(^\-?\d+\.\d+)$`)

// etwLine is PrintEvent's line: EtwJsonFormat, EtwXMLFormat or the
// custom pattern.
func (m *monitor) etwLine(e etw.Event, customFormat string) string {
	level := "None"
	if e.Level >= 0 && e.Level < len(etwLevels) {
		level = etwLevels[e.Level]
	}
	id := fmt.Sprint(e.ID)
	if e.Provider.Decoding == etw.DecodingWbem {
		id = e.EventGUID
	} else if e.Provider.Decoding != etw.DecodingXMLFile {
		id = "" // FormatMetadata sets the ID of manifest and MOF events alone
	}
	decoding := decodingNames[int(e.Provider.Decoding)%len(decodingNames)]
	keyword := fmt.Sprintf("0x%x", e.Keyword)
	t := stamp(e.Time)
	switch {
	case strings.EqualFold(m.format, "Custom"):
		var data strings.Builder
		for _, d := range e.Data {
			fmt.Fprintf(&data, "%s: %s ", d.Name, d.Value)
		}
		return custom(customFormat, "[%TimeStamp%] [%Source%] [%Severity%] [%ProviderId%] [%ProviderName%] [%EventId%] %EventData%", map[string]string{
			"timestamp": t, "severity": level, "source": "ETW", "providerid": e.Provider.GUID, "providername": e.Provider.Name,
			"decodingsource": decoding, "executionprocessid": fmt.Sprint(e.ProcessID), "executionthreadid": fmt.Sprint(e.ThreadID),
			"keyword": keyword, "eventid": id, "eventdata": data.String()})
	case strings.EqualFold(m.format, "XML"):
		var b strings.Builder
		fmt.Fprintf(&b, "<Log><Source>ETW</Source><LogEntry><Time>%s</Time><ProviderName>%s</ProviderName><ProviderId>%s</ProviderId>"+
			"<DecodingSource>%s</DecodingSource><Execution><ProcessId>%d</ProcessId><ThreadId>%d</ThreadId></Execution>"+
			"<Level>%s</Level><Keyword>%s</Keyword><EventId>%s</EventId><EventData>",
			t, e.Provider.Name, e.Provider.GUID, decoding, e.ProcessID, e.ThreadID, level, keyword, id)
		for _, d := range e.Data {
			fmt.Fprintf(&b, "<%s>%s</%s>", d.Name, d.Value, d.Name)
		}
		b.WriteString("</EventData></LogEntry></Log>")
		return b.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{"Source":"ETW","LogEntry":{"Time":"%s","ProviderName":"%s","ProviderId":"%s","DecodingSource":"%s",`+
		`"Execution":{"ProcessId":%d,"ThreadId":%d},"Level":"%s","Keyword":"%s","EventId":"%s","EventData":{`,
		t, e.Provider.Name, e.Provider.GUID, decoding, e.ProcessID, e.ThreadID, level, keyword, id)
	for k, d := range e.Data {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%s":`, jsonEscape(d.Name))
		if jsonNumber.MatchString(d.Value) {
			b.WriteString(d.Value)
		} else {
			fmt.Fprintf(&b, `"%s"`, jsonEscape(d.Value))
		}
	}
	b.WriteString(`}},"SchemaVersion":"1.0.0"}`)
	return b.String()
}
