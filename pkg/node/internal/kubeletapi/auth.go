package kubeletapi

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/kubernetes"
	kubeletserver "k8s.io/kubernetes/pkg/kubelet/server"
)

// The kubelet's defaults for authentication.webhook.cacheTTL and
// authorization.webhook.cacheAuthorized/UnauthorizedTTL.
const (
	tokenCacheTTL = 2 * time.Minute
	allowCacheTTL = 5 * time.Minute
	denyCacheTTL  = 30 * time.Second
)

// kubeletAuth guards the kubelet API on the real listeners as a kubelet
// configured by kubeadm or kind does (authentication.x509.clientCAFile,
// authentication.webhook.enabled, authorization.mode Webhook, anonymous
// off): a client certificate signed by the client CA (kube-apiserver's
// --kubelet-client-certificate) or a bearer token a TokenReview confirms,
// then a SubjectAccessReview on the node's subresource. It is built from
// the same k8s.io/apiserver factories as the kubelet's (BuildAuth in
// k8s.io/kubernetes/cmd/kubelet/app) and asks upstream's attribute getter
// which subresource a path is.
type kubeletAuth struct {
	authn authenticator.Request
	authz authorizer.Authorizer
}

// newKubeletAuth builds the authenticator and authorizer; the reviews go
// through client, the agent's own. A nil clientCA accepts no
// certificates, only tokens (a kubelet without clientCAFile).
func newKubeletAuth(client kubernetes.Interface, clientCA []byte) (*kubeletAuth, error) {
	authnConfig := authenticatorfactory.DelegatingAuthenticatorConfig{
		Anonymous:               &apiserver.AnonymousAuthConfig{Enabled: false},
		CacheTTL:                tokenCacheTTL,
		TokenAccessReviewClient: client.AuthenticationV1(),
		WebhookRetryBackoff:     genericoptions.DefaultAuthWebhookRetryBackoff(),
	}
	if clientCA != nil {
		ca, err := dynamiccertificates.NewStaticCAContent("client-ca-bundle", clientCA)
		if err != nil {
			return nil, fmt.Errorf("node agent: KubeletServing.ClientCA: %w", err)
		}
		authnConfig.ClientCertificateCAContentProvider = ca
	}
	authn, _, err := authnConfig.New()
	if err != nil {
		return nil, fmt.Errorf("node agent: kubelet authenticator: %w", err)
	}
	authz, err := authorizerfactory.DelegatingAuthorizerConfig{
		SubjectAccessReviewClient: client.AuthorizationV1(),
		AllowCacheTTL:             allowCacheTTL,
		DenyCacheTTL:              denyCacheTTL,
		WebhookRetryBackoff:       genericoptions.DefaultAuthWebhookRetryBackoff(),
	}.New()
	if err != nil {
		return nil, fmt.Errorf("node agent: kubelet authorizer: %w", err)
	}
	return &kubeletAuth{authn: authn, authz: authz}, nil
}

// externalKey marks a connection accepted on a real listener; only those
// are checked. Dial's come from the egress proxy of kube-apiserver
// in this same process, which nothing else can reach.
type externalKey struct{}

// guard wraps the kubelet API with the check for connections from the
// real listeners.
func (k *kubeletAuth) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if external, _ := r.Context().Value(externalKey{}).(bool); !external {
			next.ServeHTTP(w, r)
			return
		}
		node, _ := r.Context().Value(nodeKey{}).(string)
		if code, msg := k.check(r, node); code != http.StatusOK {
			writeError(w, code, msg)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// check is the filter of upstream's Server.InstallAuthFilter: 401 when no
// identity is proven, 403 unless one of the request's subresources (the
// fine-grained one, then proxy) is allowed, with the kubelet's messages.
func (k *kubeletAuth) check(r *http.Request, node string) (int, string) {
	info, ok, err := k.authn.AuthenticateRequest(r)
	if err != nil || !ok {
		return http.StatusUnauthorized, "Unauthorized"
	}
	attrs := kubeletserver.NewNodeAuthorizerAttributesGetter(types.NodeName(node)).GetRequestAttributes(r.Context(), info.User, r)
	if len(attrs) == 0 {
		return http.StatusForbidden, "Authorization error: could not determine attributes for request"
	}
	var subresources []string
	for _, attr := range attrs {
		subresources = append(subresources, attr.GetSubresource())
		decision, _, err := k.authz.Authorize(r.Context(), attr)
		if err != nil {
			return http.StatusInternalServerError, fmt.Sprintf("Authorization error (user=%s, verb=%s, resource=%s, subresource=%s)",
				attr.GetUser().GetName(), attr.GetVerb(), attr.GetResource(), attr.GetSubresource())
		}
		if decision == authorizer.DecisionAllow {
			return http.StatusOK, ""
		}
	}
	first := attrs[0]
	return http.StatusForbidden, fmt.Sprintf("Forbidden (user=%s, verb=%s, resource=%s, subresource(s)=%v)\n",
		first.GetUser().GetName(), first.GetVerb(), first.GetResource(), subresources)
}

// writeError writes msg as it is, as go-restful's WriteErrorString does.
func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	io.WriteString(w, msg)
}
